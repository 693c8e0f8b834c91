#!/usr/bin/env bash
# 00-lint: static checks (scripts/lint.sh) as a host-side case of make check.
# timeout: 600
exec "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lint.sh"
