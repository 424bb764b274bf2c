from pecan import rest


class ClustersController(rest.RestController):
    pass
