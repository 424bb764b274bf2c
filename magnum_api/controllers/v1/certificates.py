from pecan import rest


class CertificatesController(rest.RestController):
    pass
