"""Hook slots through which the tracer observes autograd (DESIGN §1).

``ops`` and ``autograd`` never import ``trace``: they read these slots, each ``None``
unless a tracer is active, so observation costs one ``is None`` check when tracing is off.

  inplace     object with ``before(op_name, tensor, others)`` and ``after(token)``; called
              by the in-place choke point (autograd/views.py) around the compute/bump/rebase.
  backward    object with ``start(root, deps)``, ``summarize(grads)`` (plain data taken
              before a node runs, so the observer holds no gradient), ``node(node,
              summary, outs, heap, deps)`` and ``end()``; called by the engine.
  view_created  ``f(view)`` when a view is made (the tracer's registry of live views).
  view_created  ``fn(view)``, called by ``views.make_view`` for every new view, so the
              tracer can keep a weak registry of the live views of each base (it must
              show every view an in-place op makes stale).
"""
inplace = None
backward = None
view_created = None
