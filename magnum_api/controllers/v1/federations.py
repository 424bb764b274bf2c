from pecan import rest


class FederationsController(rest.RestController):
    pass
