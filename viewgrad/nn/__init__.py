"""``viewgrad.nn``: a small ``torch.nn`` for the tutorials — Parameter, Module, the layers
(Linear, Conv2d, BatchNorm2d, ReLU, MaxPool2d, ...), losses, ``init`` and ``functional``.

State dicts are saved as ``.npz`` files (``module.save(path)`` / ``viewgrad.nn.save``),
never pickled.
"""
from . import functional, init
from .parameter import Buffer, Parameter
from .module import Module, Sequential, ModuleList, save, load
from .layers import (Identity, Linear, Conv1d, Conv2d, ConvTranspose2d, BatchNorm1d,
                     BatchNorm2d, ReLU, Tanh, Sigmoid, Softmax, LogSoftmax, Dropout,
                     MaxPool2d, AvgPool2d, AdaptiveAvgPool2d, Flatten, CrossEntropyLoss,
                     NLLLoss, MSELoss)
from . import layers_more
from .layers_more import *  # noqa: F401,F403  (activations, norms, containers, losses)
from . import rnn
from .rnn import *  # noqa: F401,F403  (RNN, LSTM, GRU and cells)
from . import transformer
from .transformer import *  # noqa: F401,F403  (attention, transformer)
from . import layers_extra
from .layers_extra import *  # noqa: F401,F403  (upsampling, norms, bags, losses)
from . import padding, layers_cnn
from .padding import *  # noqa: F401,F403  (ZeroPad2d, ReflectionPad2d, ...)
from .layers_cnn import *  # noqa: F401,F403  (Fold, Unfold, RReLU, 3-D norms)
from . import layers_rest
from .layers_rest import *  # noqa: F401,F403  (LPPool, ChannelShuffle, Dropout3d, ...)
from . import lazy
from .lazy import *  # noqa: F401,F403  (LazyLinear, LazyConv2d, ...: sizes from the 1st call)
from .parameter import UninitializedBuffer, UninitializedParameter
from . import utils

__all__ = ["functional", "init", "Parameter", "Buffer", "Module", "Sequential", "ModuleList",
           "save", "load", "Identity", "Linear", "Conv1d", "Conv2d", "ConvTranspose2d", "BatchNorm1d",
           "BatchNorm2d", "ReLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Dropout",
           "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "Flatten", "CrossEntropyLoss",
           "NLLLoss", "MSELoss", "utils"] + layers_more.__all__ + rnn.__all__ + transformer.__all__ + layers_extra.__all__ + \
    padding.__all__ + layers_cnn.__all__ + layers_rest.__all__ + lazy.__all__ + \
    ["UninitializedParameter", "UninitializedBuffer"]
