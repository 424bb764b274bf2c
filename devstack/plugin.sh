#!/bin/bash
# devstack/plugin.sh: entry point devstack calls as "plugin.sh MODE [PHASE]".
#
#   stack install      install the service from this tree
#   stack post-config  write the configuration, Keystone accounts and endpoint
#   stack extra        create the database schema and start the services
#   unstack            stop the services
#   clean              remove configuration, state and the database

# Save trace setting
_XTRACE_MAGNUM_PLUGIN=$(set +o | grep xtrace)
set -o xtrace

source "$(dirname "${BASH_SOURCE[0]}")/lib/magnum"

if is_service_enabled magnum-api magnum-cond; then
    if [[ "$1" == "stack" && "$2" == "install" ]]; then
        echo_summary "Installing magnum"
        install_magnum
        cleanup_magnum
    elif [[ "$1" == "stack" && "$2" == "post-config" ]]; then
        echo_summary "Configuring magnum"
        configure_magnum
        if is_service_enabled key; then
            create_magnum_accounts
        fi
    elif [[ "$1" == "stack" && "$2" == "extra" ]]; then
        echo_summary "Initializing magnum"
        init_magnum
        start_magnum
    fi

    if [[ "$1" == "unstack" ]]; then
        stop_magnum
    fi

    if [[ "$1" == "clean" ]]; then
        cleanup_magnum
    fi
fi

# Restore xtrace
$_XTRACE_MAGNUM_PLUGIN
