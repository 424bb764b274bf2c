from pecan import rest


class NodeGroupController(rest.RestController):
    pass
