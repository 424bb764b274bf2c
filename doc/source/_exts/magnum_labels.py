"""``.. magnum-labels::`` renders the Heat drivers' label table from the code.

The table in drivers/heat/labels.py is the one place that says which labels exist, their
defaults and accepted values; the documentation reads it rather than copying it.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import Directive


def _accepted(label, labels) -> str:
    if label.choices:
        return ", ".join(repr(choice) for choice in label.choices)
    if label.kind == labels.VERSION and label.minimum:
        return "version (vX.Y.Z), v%s or newer" % ".".join(map(str, label.minimum))
    return labels.KIND_DESCRIPTIONS.get(label.kind, "")


def _row(*cells: str) -> nodes.row:
    row = nodes.row()
    for text in cells:
        entry = nodes.entry()
        entry += nodes.paragraph(text=text)
        row += entry
    return row


class LabelsDirective(Directive):
    has_content = False

    def run(self) -> list[nodes.Node]:
        from drivers.heat import labels

        table = nodes.table()
        group = nodes.tgroup(cols=4)
        table += group
        for width in (30, 25, 25, 20):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        head += _row("label", "default", "accepted values", "scope")
        group += head
        body = nodes.tbody()
        for name, label in sorted(labels.LABELS.items()):
            default = "(unset)" if label.default is None else repr(label.default)
            scope = "cluster only" if name in labels.CLUSTER_ONLY else "cluster, node group"
            if name in labels.NODE_ENV:
                scope += "; read by the nodes"
            body += _row(name, default, _accepted(label, labels), scope)
        group += body
        return [table]


def setup(app):
    app.add_directive("magnum-labels", LabelsDirective)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
