"""A deep convolutional GAN: the steps of tutorials/source_en/generative/dcgan.md, shrunk.

Face-like images in an ``ImageFolderDataset`` folder (small JPEG files written with Pillow by
make_data.image_folder instead of the download), decoded, resized, centre-cropped, moved to CHW
and scaled by a lambda; the generator of transposed convolutions with BatchNorm and the
convolutional discriminator; BCELoss and two Adam optimizers; the training step under
``ms.jit``; checkpoints of both networks.

Shrunk: 16x16 images instead of 64x64 (files of 24x20 pixels, so Resize and CenterCrop both
act), latent vectors of 16 instead of 100, feature maps of 8 instead of 64 with one stage less,
batches of 16, two epochs.  The training draws its noise with ``ops.standard_normal``, so its
losses depend on the seed (only their words are compared); before it, the networks are run from
fixed NumPy weights on the first real batch and on fixed noise, and those numbers are compared
with MindSpore's.
"""
import numpy as np

import cellkit as ms
import cellkit.dataset as ds
import cellkit.dataset.vision as vision
from cellkit import nn, ops
from cellkit.common.initializer import Normal

import make_data

ms.set_seed(3)
batch_size = 16
image_size = 16
nc = 3
nz = 16
ngf = 8
ndf = 8
num_epochs = 2
lr = 0.0002
beta1 = 0.5

make_data.image_folder("./faces", per_class=64)


def create_dataset_imagenet(dataset_path, shuffle=True):
    dataset = ds.ImageFolderDataset(dataset_path, num_parallel_workers=2, shuffle=shuffle, decode=True)
    transforms = [
        vision.Resize(image_size),
        vision.CenterCrop(image_size),
        vision.HWC2CHW(),
        lambda x: ((x / 255).astype("float32")),
    ]
    dataset = dataset.project("image")
    dataset = dataset.map(transforms, "image")
    return dataset.batch(batch_size)


dataset = create_dataset_imagenet("./faces")
print(dataset.get_dataset_size(), dataset.get_col_names())
sample = next(create_dataset_imagenet("./faces", shuffle=False).create_tuple_iterator(output_numpy=True))[0]
print(sample.shape, sample.dtype, f"{sample.mean():.5f} {sample.std():.5f} {sample[0, :, 8, 8]}")

weight_init = Normal(mean=0, sigma=0.02)
gamma_init = Normal(mean=1, sigma=0.02)


class Generator(nn.Cell):
    def __init__(self):
        super().__init__()
        self.generator = nn.SequentialCell(
            nn.Conv2dTranspose(nz, ngf * 4, 4, 1, "valid", weight_init=weight_init),  # 1x1 -> 4x4
            nn.BatchNorm2d(ngf * 4, gamma_init=gamma_init),
            nn.ReLU(),
            nn.Conv2dTranspose(ngf * 4, ngf * 2, 4, 2, "pad", 1, weight_init=weight_init),  # -> 8x8
            nn.BatchNorm2d(ngf * 2, gamma_init=gamma_init),
            nn.ReLU(),
            nn.Conv2dTranspose(ngf * 2, nc, 4, 2, "pad", 1, weight_init=weight_init),  # -> 16x16
            nn.Tanh(),
        )

    def construct(self, x):
        return self.generator(x)


class Discriminator(nn.Cell):
    def __init__(self):
        super().__init__()
        self.discriminator = nn.SequentialCell(
            nn.Conv2d(nc, ndf, 4, 2, "pad", 1, weight_init=weight_init),  # 16x16 -> 8x8
            nn.LeakyReLU(0.2),
            nn.Conv2d(ndf, ndf * 2, 4, 2, "pad", 1, weight_init=weight_init),  # -> 4x4
            nn.BatchNorm2d(ndf * 2, gamma_init=gamma_init),
            nn.LeakyReLU(0.2),
            nn.Conv2d(ndf * 2, 1, 4, 1, "valid", weight_init=weight_init),  # -> 1x1
        )
        self.adv_layer = nn.Sigmoid()

    def construct(self, x):
        out = self.discriminator(x)
        out = out.reshape(out.shape[0], -1)
        return self.adv_layer(out)


def fixed_weights(net, seed):
    """Start from the same values on every framework (their random generators differ)."""
    rng = np.random.default_rng(seed)
    for param in net.trainable_params():
        if "gamma" in param.name:
            value = 1 + rng.normal(0, 0.02, param.shape)
        elif "beta" in param.name:
            value = np.zeros(param.shape)
        else:
            value = rng.normal(0, 0.02, param.shape)
        param.set_data(ms.Tensor(value.astype(np.float32)))
    return net


generator = fixed_weights(Generator(), 1)
discriminator = fixed_weights(Discriminator(), 2)
adversarial_loss = nn.BCELoss(reduction="mean")
optimizer_D = nn.Adam(discriminator.trainable_params(), learning_rate=lr, beta1=beta1)
optimizer_G = nn.Adam(generator.trainable_params(), learning_rate=lr, beta1=beta1)
optimizer_G.update_parameters_name("optim_g.")
optimizer_D.update_parameters_name("optim_d.")

# Checked number by number: the fixed networks on the first real batch and on fixed noise.
real = ms.Tensor(sample)
noise = ms.Tensor(np.random.default_rng(4).normal(size=(batch_size, nz, 1, 1)).astype(np.float32))
fake = generator(noise)
print(fake.shape, f"{fake.asnumpy().mean():.6f} {fake.asnumpy().std():.6f}")
valid_labels = ops.ones((batch_size, 1), ms.float32)
print(f"D(real) loss {adversarial_loss(discriminator(real), valid_labels).asnumpy():.6f}, "
      f"D(fake) loss {adversarial_loss(discriminator(fake), ops.zeros((batch_size, 1), ms.float32)).asnumpy():.6f}")


def generator_forward(real_imgs, valid):
    z = ops.standard_normal((real_imgs.shape[0], nz, 1, 1))
    gen_imgs = generator(z)
    g_loss = adversarial_loss(discriminator(gen_imgs), valid)
    return g_loss, gen_imgs


def discriminator_forward(real_imgs, gen_imgs, valid, fake):
    real_loss = adversarial_loss(discriminator(real_imgs), valid)
    fake_loss = adversarial_loss(discriminator(gen_imgs), fake)
    return (real_loss + fake_loss) / 2


grad_generator_fn = ms.value_and_grad(generator_forward, None, optimizer_G.parameters, has_aux=True)
grad_discriminator_fn = ms.value_and_grad(discriminator_forward, None, optimizer_D.parameters)


@ms.jit
def train_step(imgs):
    valid = ops.ones((imgs.shape[0], 1), ms.float32)
    fake = ops.zeros((imgs.shape[0], 1), ms.float32)
    (g_loss, gen_imgs), g_grads = grad_generator_fn(imgs, valid)
    optimizer_G(g_grads)
    d_loss, d_grads = grad_discriminator_fn(imgs, gen_imgs, valid, fake)
    optimizer_D(d_grads)
    return g_loss, d_loss, gen_imgs


G_losses = []
D_losses = []
image_list = []
total = dataset.get_dataset_size()
iterator = dataset.create_tuple_iterator(num_epochs=num_epochs)
for epoch in range(num_epochs):
    generator.set_train()
    discriminator.set_train()
    for i, (imgs,) in enumerate(iterator):
        g_loss, d_loss, gen_imgs = train_step(imgs)
        if i % 2 == 0 or i == total - 1:
            print("[%2d/%d][%3d/%d]   Loss_D:%7.4f  Loss_G:%7.4f" % (
                epoch + 1, num_epochs, i + 1, total, d_loss.asnumpy(), g_loss.asnumpy()))
        D_losses.append(d_loss.asnumpy())
        G_losses.append(g_loss.asnumpy())
    generator.set_train(False)
    fixed_noise = ops.standard_normal((batch_size, nz, 1, 1))
    img = generator(fixed_noise)
    image_list.append(img.transpose(0, 2, 3, 1).asnumpy())
    ms.save_checkpoint(generator, "./generator.ckpt")
    ms.save_checkpoint(discriminator, "./discriminator.ckpt")
print(len(G_losses), len(D_losses), image_list[-1].shape)
print(ms.load_param_into_net(Generator(), ms.load_checkpoint("./generator.ckpt"))[0])
