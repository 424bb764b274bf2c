from pecan import rest


class QuotasController(rest.RestController):
    pass
