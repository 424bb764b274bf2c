from pecan import rest


class StatsController(rest.RestController):
    pass
