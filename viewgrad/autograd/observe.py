"""Hook slots through which the tracer observes autograd (DESIGN §1).

``ops`` and ``autograd`` never import ``trace``: they read these slots, each ``None``
unless a tracer is active, so observation costs one ``is None`` check when tracing is off.

  inplace     object with ``before(op_name, tensor, others)`` and ``after(token)``; called
              by the in-place choke point (ops/table.py) around the compute/bump/rebase.
  backward    object with ``start(roots, deps, ...)``, ``node(...)``, ``end()``; called by
              the engine (autograd/engine.py).
"""
inplace = None
backward = None
