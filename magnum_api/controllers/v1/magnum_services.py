from pecan import rest


class MagnumServicesController(rest.RestController):
    pass
