"""Exception codes and messages, and which of them cross RPC with their class."""

from __future__ import annotations

from magnum_common import exception


def test_exception_messages_and_codes():
    err = exception.ClusterNotFound(cluster="nope")
    assert (str(err), err.code) == ("Cluster nope could not be found.", 404)
    assert exception.ResourceLimitExceeded(msg="x").code == 403
    assert exception.NodeGroupInvalidInput(attr="a", nodegroup="n", expl="e").code == 409
    assert exception.InvalidParameterValue(err="bad value").code == 400
    assert exception.Invalid("custom text").format_message() == "custom text"
    assert exception.ServiceUnavailable(reason="broker").code == 503
    # A template missing its argument still produces a message rather than failing.
    assert str(exception.ClusterNotFound()) == "Cluster %(cluster)s could not be found."


def test_a_code_given_at_raise_time_wins_and_messages_need_their_arguments():
    err = exception.Conflict(code=423)
    assert err.code == 423 and exception.Conflict.code == 409
    assert "code" not in err.kwargs
    assert str(exception.InvalidClusterSize(expect_size="x", size=1, discovery_url="u")) == \
        exception.InvalidClusterSize.message  # a bad argument keeps the template
    assert exception.HeatUnavailable(attempts=3, error="down").code == 503


def test_every_class_carries_an_http_status_and_a_message():
    classes = [c for c in vars(exception).values()
               if isinstance(c, type) and issubclass(c, exception.MagnumException)]
    assert len(classes) > 50
    for cls in classes:
        assert 400 <= cls.code < 600, cls
        assert cls.message, cls
    # The families the API maps answer their family's status.
    assert all(c.code == 404 for c in classes if issubclass(c, exception.ResourceNotFound))
    assert all(c.code == 409 for c in classes if issubclass(c, exception.Conflict))
    assert all(c.code == 400 for c in classes if issubclass(c, exception.Invalid)
               and not issubclass(c, exception.NodeGroupInvalidInput))
