# The present scenario's figures, on the host: $1 is the scenario's directory, $2 Tests/KernelInputVM.
# Every report sent must reach each compositor's client and have its answer presented.
set -euo pipefail
python3 "$2/present.py" "$1" touchrouter cage sway
