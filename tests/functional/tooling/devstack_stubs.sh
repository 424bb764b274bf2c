#!/bin/bash
# Stand-ins for the devstack functions the magnum plugin calls.
#
# Each stub appends one line to $STUB_LOG: the function name and its
# arguments, tab separated. Stubs whose effect the plugin relies on also
# perform it inside the sandbox (iniset writes the ini file, sudo runs the
# command, write_uwsgi_config writes a uWSGI ini, ...).
#
# Inputs: STUB_LOG, STUB_PYTHON (python with configparser), STUB_BIN_DIR,
# STUB_DATABASE_URL, ENABLED_SERVICES (comma separated).

function _stub_record {
    local line=$1
    shift
    local arg
    for arg in "$@"; do
        line+=$'\t'$arg
    done
    printf '%s\n' "$line" >>"$STUB_LOG"
}

function trueorfalse {
    local default=$1
    local value=${!2:-$default}
    case "${value,,}" in
        1|yes|true|on) echo "True" ;;
        0|no|false|off) echo "False" ;;
        *) echo "$default" ;;
    esac
}

function is_service_enabled {
    local service
    for service in "$@"; do
        if [[ ",$ENABLED_SERVICES," == *",$service,"* ]]; then
            return 0
        fi
    done
    return 1
}

function enable_service {
    _stub_record enable_service "$@"
    local service
    for service in "$@"; do
        ENABLED_SERVICES+=",$service"
    done
}

function get_python_exec_prefix {
    echo "$STUB_BIN_DIR"
}

function sudo {
    _stub_record sudo "$@"
    "$@"
}

function iniset {
    if [[ "$1" == "-sudo" ]]; then
        shift
    fi
    _stub_record iniset "$@"
    "$STUB_PYTHON" -I -S - "$@" <<'PY'
import configparser
import os
import sys

path, section, key, value = sys.argv[1:5]
parser = configparser.RawConfigParser(interpolation=None, strict=False)
parser.optionxform = str
if os.path.exists(path):
    parser.read(path)
if section != "DEFAULT" and not parser.has_section(section):
    parser.add_section(section)
parser.set(section, key, value)
with open(path, "w") as stream:
    parser.write(stream)
PY
}

function iniset_rpc_backend {
    _stub_record iniset_rpc_backend "$@"
    iniset "$2" DEFAULT transport_url \
        "rabbit://stackrabbit:secret@127.0.0.1:5672/"
}

function database_connection_url {
    _stub_record database_connection_url "$@"
    echo "$STUB_DATABASE_URL"
}

function configure_keystone_authtoken_middleware {
    _stub_record configure_keystone_authtoken_middleware "$@"
    iniset "$1" keystone_authtoken auth_type password
    iniset "$1" keystone_authtoken auth_url "$KEYSTONE_SERVICE_URI"
    iniset "$1" keystone_authtoken username "$2"
    iniset "$1" keystone_authtoken password "$SERVICE_PASSWORD"
}

function write_uwsgi_config {
    _stub_record write_uwsgi_config "$@"
    printf '[uwsgi]\nmodule = %s\n' "$2" >"$1"
}

function get_or_create_domain {
    _stub_record get_or_create_domain "$@"
    echo "domain-id-$1"
}

function get_or_create_user {
    _stub_record get_or_create_user "$@"
    echo "user-id-$1"
}

function wait_for_service {
    _stub_record wait_for_service "$@"
    return 0
}

function die {
    _stub_record die "$@"
    exit 1
}

# Stubs with no effect beyond the record.
for _stub in echo_summary install_apache_uwsgi setup_develop \
        remove_uwsgi_config setup_logging create_service_user \
        get_or_create_service get_or_create_endpoint get_or_create_role \
        get_or_add_user_domain_role recreate_database run_process \
        stop_process; do
    eval "function $_stub { _stub_record $_stub \"\$@\"; }"
done
unset _stub
