"""The contract through which the tracer observes autograd (the slots live in
``autograd.state``).

``ops`` and ``autograd`` never import ``trace``: they read three per-thread slots of
``autograd.state.state``, each ``None`` unless a tracer is active in that thread, so
observation costs one ``is None`` check when tracing is off, and a tracer sees only the
thread it was started in.

  state.inplace_observer   object with ``before(op_name, tensor, others, keywords=None)``
              (``keywords``: the call's ``alpha``, as the user wrote it) and
              ``after(token)``; called by the in-place choke point (autograd/views.py) around
              the compute/bump/rebase.
  state.backward_observer  object with ``start(root, deps)``, ``summarize(grads, node)``
              (plain data taken just before ``node`` runs, so the observer holds no
              gradient), ``node(node, summary, outs, heap, deps, buffers)`` after the node
              handed its gradients on (buffers, counts and queue as they are then) and
              ``end()`` (from the engine's ``finally``: also when a node raised).
  state.view_observer      ``fn(view)``, called by ``views.make_view`` for every new view,
              so the tracer can keep a weak registry of the live views of each base (it
              must show every view an in-place op makes stale).
"""
from .state import state

__all__ = ["state"]
