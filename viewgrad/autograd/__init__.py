"""viewgrad.autograd: the graph, the engine, views + in-place, custom Functions, checks."""
from .engine import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import gradcheck, gradgradcheck, GradcheckError
from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,
                        is_grad_enabled, is_inference_mode_enabled)
from .anomaly import detect_anomaly, set_detect_anomaly, is_anomaly_enabled
from .views import set_view_replay, is_view_replay_enabled, CreationMeta
from .blame import set_blame, is_blame_enabled
from . import graph
from . import functional, profiler
from .variable import Variable

__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "gradcheck",
           "gradgradcheck", "GradcheckError", "no_grad", "enable_grad", "set_grad_enabled",
           "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "detect_anomaly",
           "set_detect_anomaly", "is_anomaly_enabled", "set_view_replay",
           "is_view_replay_enabled", "CreationMeta", "set_blame", "is_blame_enabled", "graph",
           "functional", "profiler", "Variable"]
