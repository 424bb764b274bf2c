"""The exception hierarchy shared by the API and the conductor.

Every exception carries the HTTP status the API answers with (``code``) and a message
template filled from keyword arguments. Exceptions raised in the conductor travel back over
RPC (only classes of this module are re-raised on the caller) and keep their code.
"""

from __future__ import annotations

import http.client as http


class MagnumException(Exception):
    """Base class: ``message`` is a %-template filled from the constructor's kwargs."""

    message = "An unknown exception occurred."
    code = http.INTERNAL_SERVER_ERROR

    def __init__(self, message: str | None = None, **kwargs: object) -> None:
        self.kwargs = kwargs
        if "code" in kwargs:
            self.code = int(kwargs.pop("code"))  # type: ignore[arg-type]
        if message is None:
            try:
                message = self.message % kwargs
            except (KeyError, TypeError, ValueError):
                message = self.message
        self.msg = str(message)
        super().__init__(self.msg)

    def __str__(self) -> str:
        return self.msg

    def format_message(self) -> str:
        return self.msg


# --- 400 -----------------------------------------------------------------------------------
class Invalid(MagnumException):
    message = "Unacceptable parameters."
    code = http.BAD_REQUEST


class InvalidParameterValue(Invalid):
    message = "%(err)s"


class PatchError(Invalid):
    message = "Couldn't apply patch '%(patch)s'. Reason: %(reason)s"


class InvalidUUID(Invalid):
    message = "Expected a uuid but received %(uuid)s."


class InvalidName(Invalid):
    message = "Expected a name but received %(name)s."


class InvalidDiscoveryURL(Invalid):
    message = (
        "Received invalid discovery URL '%(discovery_url)s' for discovery endpoint "
        "'%(discovery_endpoint)s'."
    )


class GetDiscoveryUrlFailed(MagnumException):
    message = "Failed to get discovery url from '%(discovery_endpoint)s'."


class InvalidClusterDiscoveryURL(Invalid):
    message = "Invalid discovery URL '%(discovery_url)s'."


class InvalidClusterSize(Invalid):
    message = (
        "Expected cluster size %(expect_size)d but get cluster size %(size)d from "
        "'%(discovery_url)s'."
    )


class InvalidDNS(Invalid):
    message = (
        "Expected a single dns address or comma separated dns list, but received %(dns)s."
    )


class InvalidCsr(Invalid):
    message = "Received invalid csr %(csr)s."


class CertificateValidationError(Invalid):
    message = "Extension '%(extension)s' not allowed"


class InvalidSubnet(Invalid):
    message = "Received invalid subnet %(subnet)s."


class InvalidVersion(Invalid):
    message = "Received invalid version %(version)s."


class ClusterTemplateReferenced(Invalid):
    message = "ClusterTemplate %(clustertemplate)s is referenced by one or multiple clusters."


class NotSupported(Invalid):
    message = "%(operation)s is not supported."


class ClusterTypeNotSupported(NotSupported):
    message = (
        "Cluster type (%(server_type)s, %(os)s, %(coe)s) is not supported by any loaded "
        "cluster driver. Loaded drivers support: %(supported)s."
    )


class ClusterTypeBetaNotEnabled(NotSupported):
    message = (
        "Cluster type (%(server_type)s, %(os)s, %(coe)s) is provided by the '%(driver)s' "
        "driver, which is a beta driver and is not enabled. Add '%(driver)s' to the "
        "[drivers]/enabled_beta_drivers configuration option to use it."
    )


class ClusterDriverNotSupported(NotSupported):
    message = "Cluster driver (%(driver_name)s) not supported."


class ZeroNodeCountNotSupported(NotSupported):
    message = "Resizing a nodegroup to zero is not supported in the provided microversion."


class ClusterUpgradeNotSupported(NotSupported):
    message = "Cluster upgrade is not supported in the provided microversion."


class MasterNGSizeInvalid(InvalidParameterValue):
    message = (
        "master nodegroup size of %(requested_size)s is invalid, size cannot be an even "
        "number."
    )


class MasterNGResizeNotSupported(NotSupported):
    message = "Resizing the master nodegroup is not supported by this driver."


class NGResizeOutBounds(Invalid):
    message = (
        "Resizing %(nodegroup)s outside the allowed range: min_node_count = %(min_nc)s, "
        "max_node_count = %(max_nc)s"
    )


class DeletingDefaultNGNotSupported(NotSupported):
    message = "Deleting a default nodegroup is not supported."


class CreateMasterNodeGroup(NotSupported):
    message = "Creating master nodegroups is currently not supported."


class FlavorZeroRootVolumeNotSupported(Invalid):
    message = (
        "Flavor with zero root volume size is not supported when boot_volume_size is zero."
    )


class ImageNotFound(Invalid):
    message = "Image %(image_id)s could not be found."


class OSDistroFieldNotFound(Invalid):
    message = "Image %(image_id)s doesn't contain os_distro field."


class FlavorNotFound(Invalid):
    message = "Unable to find flavor %(flavor)s."


class ExternalNetworkNotFound(Invalid):
    message = "Unable to find external network %(network)s."


class FixedNetworkNotFound(Invalid):
    message = "Unable to find fixed network %(network)s."


class FixedSubnetNotFound(Invalid):
    message = "Unable to find fixed subnet %(subnet)s."


class TrusteeOrTrustToClusterFailed(MagnumException):
    message = "Failed to create trustee or trust for Cluster: %(cluster_uuid)s"


class PreDeletionFailed(MagnumException):
    message = "Failed to pre-delete resources for cluster %(cluster_uuid)s, error: %(msg)s."


class RegionsListFailed(MagnumException):
    message = "Failed to list regions."


class InvalidState(Invalid):
    """A state-machine transition that is not allowed from the current status."""

    message = "Cluster %(cluster)s cannot go from %(current)s to %(target)s."


class OperationRefused(InvalidState):
    """A conductor found the cluster in a status the recorded operation cannot start from
    (the API checks first; this is the race where the status moved in between)."""

    message = "%(operation)s is not possible while cluster %(cluster)s is %(status)s."


# --- 403 -----------------------------------------------------------------------------------
class NotAuthorized(MagnumException):
    message = "Not authorized."
    code = http.FORBIDDEN


class PolicyNotAuthorized(NotAuthorized):
    message = "Policy doesn't allow %(action)s to be performed."


class ClusterTemplatePublishDenied(NotAuthorized):
    message = "Not authorized to set public or hidden flag for cluster template."


class ImageNotAuthorized(NotAuthorized):
    message = "Not authorized for image %(image_id)s."


class ResourceLimitExceeded(NotAuthorized):
    message = "Resource limit exceeded: %(msg)s"


class AuthorizationFailure(MagnumException):
    message = "%(client)s connection failed. %(message)s"
    code = http.FORBIDDEN


class AuthenticationFailed(AuthorizationFailure):
    """A conductor cannot act for the cluster: no usable trust nor requester token."""

    message = "Cannot act for cluster %(cluster)s: %(reason)s"


# --- 404 -----------------------------------------------------------------------------------
class ResourceNotFound(MagnumException):
    message = "Resource could not be found."
    code = http.NOT_FOUND


ObjectNotFound = ResourceNotFound


class ClusterNotFound(ResourceNotFound):
    message = "Cluster %(cluster)s could not be found."


class ClusterTemplateNotFound(ResourceNotFound):
    message = "ClusterTemplate %(clustertemplate)s could not be found."


class NodeGroupNotFound(ResourceNotFound):
    message = "Nodegroup %(nodegroup)s could not be found."


class FederationNotFound(ResourceNotFound):
    message = "Federation %(federation)s could not be found."


class X509KeyPairNotFound(ResourceNotFound):
    message = "A key pair %(x509keypair)s could not be found."


class MagnumServiceNotFound(ResourceNotFound):
    message = "A magnum service %(magnum_service_id)s could not be found."


class QuotaNotFound(ResourceNotFound):
    message = "Quota could not be found: %(msg)s"


class KeyPairNotFound(ResourceNotFound):
    message = "Unable to find keypair %(keypair)s."


class ProjectNotFound(ResourceNotFound):
    message = "The project_id %(name)s could not be found."


class TrustNotFound(ResourceNotFound):
    message = "Trust %(trust)s could not be found."


class CertificateNotFound(ResourceNotFound):
    message = "Certificate %(certificate)s could not be found."


class StackNotFound(ResourceNotFound):
    message = "Stack %(stack)s could not be found."


class OperationNotFound(ResourceNotFound):
    message = "Operation %(operation)s could not be found."


# --- 409 -----------------------------------------------------------------------------------
class Conflict(MagnumException):
    message = "Conflict."
    code = http.CONFLICT


class ClusterAlreadyExists(Conflict):
    message = "A cluster with UUID %(uuid)s already exists."


class ClusterTemplateAlreadyExists(Conflict):
    message = "A ClusterTemplate with UUID %(uuid)s already exists."


class NodeGroupAlreadyExists(Conflict):
    message = "A node group with name %(name)s already exists in the cluster %(cluster_id)s."


class NodeGroupInvalidInput(Conflict):
    message = "%(attr)s for %(nodegroup)s is invalid (%(expl)s)."


class FederationAlreadyExists(Conflict):
    message = "A federation with UUID %(uuid)s already exists."


class MemberAlreadyExists(Conflict):
    message = (
        "A cluster with UUID %(uuid)s is already a member of the federation "
        "%(federation_name)s."
    )


class X509KeyPairAlreadyExists(Conflict):
    message = "A key pair with UUID %(uuid)s already exists."


class MagnumServiceAlreadyExists(Conflict):
    message = "A magnum service with ID %(id)s already exists."


class QuotaAlreadyExists(Conflict):
    message = "Quota for project %(project_id)s already exists for resource %(resource)s."


class ClusterAPIAddressUnavailable(Conflict):
    message = "Cluster API address is not available yet"


class InvalidClusterTemplateForUpgrade(Conflict):
    message = "Cluster Template is not valid for upgrade: %(reason)s"


class StackBusy(Conflict):
    """A driver's backend refused a change because the stack still runs an earlier one
    (Heat's 409); raised with the backend's own message."""

    message = "The cluster's stack is busy with an earlier change."


class OperationConflict(Conflict):
    """A request that contradicts an operation open on the cluster (it cannot wait)."""

    message = ("The %(request)s request contradicts operation %(operation)s (%(kind)s, "
               "%(state)s) of cluster %(cluster)s; retry once it has finished.")


class NgOperationInProgress(Invalid):
    message = "Nodegroup %(nodegroup)s already has an operation in progress."


class ClusterLocked(Conflict):
    """Another conductor holds the cluster's lease."""

    message = "Cluster %(cluster)s is locked by conductor %(owner)s."


class ClusterBusy(Conflict):
    """Another conductor holds the cluster's lease (a call that needs it, now)."""

    message = ("Cluster %(cluster)s is being worked on by another conductor; retry the "
               "request in a moment.")


class ConcurrentUpdate(Conflict):
    """A compare-and-swap update lost against a concurrent writer."""

    message = "%(resource)s %(ident)s was changed concurrently; retry the request."


# --- 5xx -----------------------------------------------------------------------------------
class ServiceUnavailable(MagnumException):
    message = "The service is temporarily unavailable: %(reason)s"
    code = http.SERVICE_UNAVAILABLE


class HeatUnavailable(ServiceUnavailable):
    """Heat kept failing (5xx, connection errors, timeouts) through every retry."""

    message = "Heat did not answer after %(attempts)d attempts: %(error)s"


class EtcdHandoverFailed(ServiceUnavailable):
    """A lone master did not hand its etcd snapshot over before its replacement (raised by
    the Heat drivers; the API, waiting on the upgrade's call, answers 202 as for any failure
    of the backend, and the cluster's status_reason carries this message)."""

    message = ("The only master of cluster %(cluster)s did not hand over its etcd snapshot: "
               "%(reason)s. Nothing was replaced; the master and its data are as they were.")


class ServiceTimedOut(ServiceUnavailable):
    """Another service (Keystone, Barbican...) left a request without an answer."""

    message = "%(call)s"


class OperationTimedOut(MagnumException):
    """A conductor worked on an operation past its maximum run time (the watchdog)."""

    message = "%(operation)s did not finish within %(seconds)d s: %(waiting)s"


class DecryptionFailed(MagnumException):
    """A server-side configuration fault, reported as such (not as a RemoteError)."""

    message = (
        "A stored secret could not be decrypted with the configured [crypto] keys; "
        "was encryption_key changed without listing the old one in previous_encryption_keys?"
    )


class ConfigInvalid(MagnumException):
    message = "Invalid configuration file. %(error_msg)s"


class ServicesListFailed(MagnumException):
    message = "Failed to list Magnum services."
