"""A generative adversarial network on MNIST: the steps of tutorials/source_en/generative/gan.md.

MNIST idx files (made by make_data.py instead of the download) wrapped in a GeneratorDataset whose
map adds a latent code per image, a fixed batch of test noise, the fully-connected generator (with
BatchNorm1d) and discriminator, BCELoss with two Adam optimizers, the alternating training step,
checkpoints of both networks per epoch, and images generated from the test noise.

Shrunk: latent codes of 32 instead of 100, layers 64/128/256 (generator) and 128/64
(discriminator), batches of 64, two epochs; the images are summarised by their statistics instead
of drawn.  The shuffled training's losses depend on the seed (only their words are compared);
before it, one training step from fixed NumPy weights on fixed data is compared number by number.
Adapted: ``random.seed`` is set before ``random.shuffle(test_noise)`` so the test noise repeats.
"""
import os
import random
import time

import numpy as np

import cellkit as ms
import cellkit.dataset as ds
import cellkit.ops as ops
from cellkit import Tensor, dtype, nn, save_checkpoint

import make_data

ms.set_seed(11)
make_data.mnist("MNIST_Data")
batch_size = 64
latent_size = 32

train_dataset = ds.MnistDataset(dataset_dir="./MNIST_Data/train")


def data_load(dataset):
    dataset1 = ds.GeneratorDataset(dataset, ["image", "label"], shuffle=True, python_multiprocessing=False)
    mnist_ds = dataset1.map(
        operations=lambda x: (x.astype("float32"), np.random.normal(size=latent_size).astype("float32")),
        output_columns=["image", "latent_code"])
    mnist_ds = mnist_ds.project(["image", "latent_code"])
    return mnist_ds.batch(batch_size, True)


mnist_ds = data_load(train_dataset)
iter_size = mnist_ds.get_dataset_size()
print("Iter size: %d" % iter_size)
data_iter = next(mnist_ds.create_dict_iterator(output_numpy=True))
print(data_iter["image"].shape, data_iter["image"].dtype, data_iter["latent_code"].shape)

np.random.seed(2323)
random.seed(2323)
test_noise = Tensor(np.random.normal(size=(25, latent_size)), dtype.float32)
random.shuffle(test_noise)
print(test_noise.shape, f"{test_noise.asnumpy().sum():.4f}", f"{test_noise.asnumpy()[:, 0].sum():.4f}")

img_size = 28


class Generator(nn.Cell):
    def __init__(self, latent_size, auto_prefix=True):
        super().__init__(auto_prefix=auto_prefix)
        self.model = nn.SequentialCell()
        self.model.append(nn.Dense(latent_size, 64))
        self.model.append(nn.ReLU())
        self.model.append(nn.Dense(64, 128))
        self.model.append(nn.BatchNorm1d(128))
        self.model.append(nn.ReLU())
        self.model.append(nn.Dense(128, 256))
        self.model.append(nn.BatchNorm1d(256))
        self.model.append(nn.ReLU())
        self.model.append(nn.Dense(256, img_size * img_size))
        self.model.append(nn.Tanh())

    def construct(self, x):
        img = self.model(x)
        return ops.reshape(img, (-1, 1, 28, 28))


class Discriminator(nn.Cell):
    def __init__(self, auto_prefix=True):
        super().__init__(auto_prefix=auto_prefix)
        self.model = nn.SequentialCell()
        self.model.append(nn.Dense(img_size * img_size, 128))
        self.model.append(nn.LeakyReLU())
        self.model.append(nn.Dense(128, 64))
        self.model.append(nn.LeakyReLU())
        self.model.append(nn.Dense(64, 1))
        self.model.append(nn.Sigmoid())

    def construct(self, x):
        x_flat = ops.reshape(x, (-1, img_size * img_size))
        return self.model(x_flat)


def fixed_weights(net, seed):
    """Start from the same values on every framework (their random generators differ)."""
    rng = np.random.default_rng(seed)
    for param in net.trainable_params():
        if "gamma" in param.name:
            value = np.ones(param.shape)
        elif len(param.shape) == 1:
            value = np.zeros(param.shape)
        else:
            value = rng.uniform(-1, 1, param.shape) / np.sqrt(param.shape[-1])
        param.set_data(Tensor(value.astype(np.float32)))
    return net


net_g = fixed_weights(Generator(latent_size), 1)
net_g.update_parameters_name("generator")
net_d = fixed_weights(Discriminator(), 2)
net_d.update_parameters_name("discriminator")
print([p.name for p in net_g.trainable_params()][:3], [p.name for p in net_d.trainable_params()][:2])

lr = 0.0002
adversarial_loss = nn.BCELoss(reduction="mean")
optimizer_d = nn.Adam(net_d.trainable_params(), learning_rate=lr, beta1=0.5, beta2=0.999)
optimizer_g = nn.Adam(net_g.trainable_params(), learning_rate=lr, beta1=0.5, beta2=0.999)
optimizer_g.update_parameters_name("optim_g")
optimizer_d.update_parameters_name("optim_d")
print(optimizer_g.moment1[0].name, optimizer_d.moment2[0].name)

total_epoch = 2
checkpoints_path = "./result/checkpoints"
image_path = "./result/images"


def generator_forward(test_noises):
    fake_data = net_g(test_noises)
    fake_out = net_d(fake_data)
    return adversarial_loss(fake_out, ops.ones_like(fake_out))


def discriminator_forward(real_data, test_noises):
    fake_data = net_g(test_noises)
    fake_out = net_d(fake_data)
    real_out = net_d(real_data)
    real_loss = adversarial_loss(real_out, ops.ones_like(real_out))
    fake_loss = adversarial_loss(fake_out, ops.zeros_like(fake_out))
    return real_loss + fake_loss


grad_g = ms.value_and_grad(generator_forward, None, net_g.trainable_params())
grad_d = ms.value_and_grad(discriminator_forward, None, net_d.trainable_params())


def train_step(real_data, latent_code):
    loss_d, grads_d = grad_d(real_data, latent_code)
    optimizer_d(grads_d)
    loss_g, grads_g = grad_g(latent_code)
    optimizer_g(grads_g)
    return loss_d, loss_g


def describe(images):
    """Statistics of generated images instead of a plot."""
    return f"{images.shape} min {images.min():.4f} max {images.max():.4f} mean {images.mean():.4f}"


os.makedirs(checkpoints_path, exist_ok=True)
os.makedirs(image_path, exist_ok=True)
net_g.set_train()
net_d.set_train()

# Checked number by number: two steps from the fixed weights on fixed images and codes.
plain = ds.MnistDataset("./MNIST_Data/train", shuffle=False, num_samples=2 * batch_size).batch(batch_size)
codes = np.random.default_rng(5).normal(size=(2, batch_size, latent_size)).astype(np.float32)
for step, (image, _) in enumerate(plain.create_tuple_iterator()):
    image = (image.astype(ms.float32) - 127.5) / 127.5
    image = image.reshape(image.shape[0], 1, image.shape[1], image.shape[2])
    d_loss, g_loss = train_step(image, Tensor(codes[step]))
    print(f"fixed step {step}: loss_d:{d_loss.asnumpy():>4f} , loss_g:{g_loss.asnumpy():>4f}")
net_g.set_train(False)
print("generated:", describe(net_g(test_noise).asnumpy()))
net_g.set_train()

losses_g, losses_d = [], []
for epoch in range(total_epoch):
    start = time.time()
    for (iter, data) in enumerate(mnist_ds):
        start1 = time.time()
        image, latent_code = data
        image = (image - 127.5) / 127.5
        image = image.reshape(image.shape[0], 1, image.shape[1], image.shape[2])
        d_loss, g_loss = train_step(image, latent_code)
        end1 = time.time()
        if iter % 4 == 0:
            print(f"Epoch:[{int(epoch):>3d}/{int(total_epoch):>3d}], "
                  f"step:[{int(iter):>4d}/{int(iter_size):>4d}], "
                  f"loss_d:{d_loss.asnumpy():>4f} , "
                  f"loss_g:{g_loss.asnumpy():>4f} , "
                  f"lr:{lr:>6f}")
    end = time.time()
    print("epoch {} done".format(epoch + 1), end - start < 60)
    losses_d.append(d_loss.asnumpy())
    losses_g.append(g_loss.asnumpy())
    gen_imgs = net_g(test_noise)
    print("generated:", describe(gen_imgs.asnumpy()))
    save_checkpoint(net_g, checkpoints_path + "/Generator%d.ckpt" % epoch)
    save_checkpoint(net_d, checkpoints_path + "/Discriminator%d.ckpt" % epoch)
print(sorted(os.listdir(checkpoints_path)))

# Load the last generator and draw from the test noise.
test_ckpt = "./result/checkpoints/Generator%d.ckpt" % (total_epoch - 1)
parameter = ms.load_checkpoint(test_ckpt)
print(ms.load_param_into_net(net_g, parameter)[0])
net_g.set_train(False)
print("generated:", describe(net_g(test_noise).asnumpy()))
