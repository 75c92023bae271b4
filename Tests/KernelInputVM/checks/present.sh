# The present scenario's figures, on the host: $1 is the scenario's directory, $2 Tests/KernelInputVM.
# Every report sent must reach TouchRouter's and cage's client and have its answer presented.
# sway 1.7 is reported, not checked: here it gives the client a stroke's first down and its
# up, and nothing more (docs/benchmarks.md, "Touch to present").
set -euo pipefail
python3 "$2/present.py" "$1" touchrouter cage sway:report
