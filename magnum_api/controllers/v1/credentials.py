from pecan import rest


class CredentialsController(rest.RestController):
    pass
