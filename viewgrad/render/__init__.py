"""Pictures of snapshots, events and backward passes (render only: never touches graphs).

  dot.py       DOT via the ``graphviz`` package: ``draw`` (event: before | after clusters;
               snapshot / tensors: one cluster), ``draw_snapshot``, ``draw_backward_step``
  layout.py    viewgrad's own layered layout for big graphs (Graphviz then only draws)
  svg.py       which binary turns DOT into SVG (system ``dot`` or ``graphviz-pure``)
  terminal.py  rich: a tree per tensor, before | after columns, backward step tables
  html.py      one self-contained web page stepping through a whole trace
  common.py    what to draw, and the neighbourhood of a big graph to keep
"""
