"""Hook slots through which the tracer observes autograd (DESIGN §1).

``ops`` and ``autograd`` never import ``trace``: they read these slots, each ``None``
unless a tracer is active, so observation costs one ``is None`` check when tracing is off.

  inplace     object with ``before(op_name, tensor, others)`` and ``after(token)``; called
              by the in-place choke point (ops/table.py) around the compute/bump/rebase.
  backward    object with ``start(root, deps)``, ``summarize(grads, node)`` (plain data
              taken just before ``node`` runs, so the observer holds no gradient),
              ``node(node, summary, outs, heap, deps, buffers)`` after the node handed its
              gradients on (buffers, counts and queue as they are then) and ``end()``
              (called from the engine's ``finally``: also when a node raised).
  view_created  ``f(view)`` when a view is made (the tracer's registry of live views).
  view_created  ``fn(view)``, called by ``views.make_view`` for every new view, so the
              tracer can keep a weak registry of the live views of each base (it must
              show every view an in-place op makes stale).
"""
inplace = None
backward = None
view_created = None
