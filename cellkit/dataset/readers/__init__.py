"""Readers of the on-disk formats: idx (MNIST), CIFAR binaries, image folders, MindRecord, text."""
