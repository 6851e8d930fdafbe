#!/usr/bin/env bash
# Fails when a C++ file that a change touches breaks the naming scheme of the root .clang-tidy
# (readability-identifier-naming: types CamelCase, functions camelBack, variables lower_case,
# private members lower_case_, constants kCamelCase; README, Code style) or, in engine/,
# runner/, widgets/ or app/ (their sub-folders too), has a function longer than their
# .clang-tidy allows (readability-function-size).
# Run by CTest as style.clang_tidy:
#   check_tidy.sh CLANG_TIDY SOURCE_DIR BUILD_DIR
# Which files: those changed between SAILOR_TIDY_BASE (default HEAD~1, the last commit) and the
# working tree, uncommitted and untracked ones included; a changed header is checked through one
# translation unit that includes it. SAILOR_TIDY_ALL=1, or a clone without the base commit (a
# shallow one), checks every translation unit instead.
# Only these two checks' warnings count: clang 14 reports errors inside libtorch's headers, which are not
# this project's to fix.
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: check_tidy.sh CLANG_TIDY SOURCE_DIR BUILD_DIR" >&2
  exit 2
fi
clang_tidy=$1
source_dir=$(cd "$2" && pwd)
build_dir=$(cd "$3" && pwd)
database="${build_dir}/compile_commands.json"
if [[ ! -f "${database}" ]]; then
  echo "check_tidy.sh: ${database} is missing (configure with CMAKE_EXPORT_COMPILE_COMMANDS)" >&2
  exit 2
fi

# Translation units of the project in the compilation database (generated moc/autogen files out).
mapfile -t units < <(grep -o '"file": *"[^"]*"' "${database}" | sed 's/"file": *"\(.*\)"/\1/' |
  grep -E "^${source_dir}/(app|engine|widgets|runner|tests)/.*\.cpp$" | grep -v '_autogen/' |
  sort -u)
if [[ ${#units[@]} -eq 0 ]]; then
  echo "check_tidy.sh: no translation unit of ${source_dir} in ${database}" >&2
  exit 2
fi

base=${SAILOR_TIDY_BASE:-HEAD~1}
files=()
if [[ "${SAILOR_TIDY_ALL:-0}" == 1 ]]; then
  files=("${units[@]}")
  echo "check_tidy.sh: SAILOR_TIDY_ALL=1: every translation unit (${#files[@]})"
elif ! git -C "${source_dir}" rev-parse --verify --quiet "${base}^{commit}" >/dev/null; then
  files=("${units[@]}")
  echo "check_tidy.sh: no commit ${base} in this clone: every translation unit (${#files[@]})"
else
  mapfile -t changed < <({
    git -C "${source_dir}" diff --name-only "${base}" -- '*.cpp' '*.hpp' '*.h'
    git -C "${source_dir}" ls-files --others --exclude-standard -- '*.cpp' '*.hpp' '*.h'
  } | grep -E '^(app|engine|widgets|runner|tests)/' | sort -u)
  declare -A chosen=()
  for rel in "${changed[@]}"; do
    [[ -f "${source_dir}/${rel}" ]] || continue  # deleted by the change
    if [[ "${rel}" == *.cpp ]]; then
      for unit in "${units[@]}"; do
        if [[ "${unit}" == "${source_dir}/${rel}" ]]; then chosen["${unit}"]=1; fi
      done
      continue
    fi
    # A header: the first unit that includes it by its name (the header filter of .clang-tidy
    # then reports the header's own names).
    name=$(basename "${rel}")
    for unit in "${units[@]}"; do
      if grep -qE "#include [\"<]([a-z_]+/)?${name}[\">]" "${unit}"; then
        chosen["${unit}"]=1
        break
      fi
    done
  done
  files=("${!chosen[@]}")
  echo "check_tidy.sh: ${#changed[@]} C++ files changed since ${base}:" \
       "${#files[@]} translation units to check"
fi
if [[ ${#files[@]} -eq 0 ]]; then
  echo "check_tidy.sh: nothing to check"
  exit 0
fi

jobs=$(nproc)
log=$(mktemp)
trap 'rm -f "${log}"' EXIT
printf '%s\0' "${files[@]}" |
  xargs -0 -n 4 -P "${jobs}" "${clang_tidy}" -p "${build_dir}" --quiet \
    --checks='-*,readability-identifier-naming,readability-function-size' >"${log}" 2>/dev/null || true

mapfile -t findings < <(grep -E 'warning: .*\[readability-(identifier-naming|function-size)\]' "${log}" | sort -u)
if [[ ${#findings[@]} -gt 0 ]]; then
  printf '%s\n' "${findings[@]}"
  echo "check_tidy.sh: ${#findings[@]} findings: names that differ from the scheme of" \
       ".clang-tidy, or functions too long for engine/, runner/, widgets/ or app/ (README, Code style)" >&2
  exit 1
fi
echo "check_tidy.sh: ${#files[@]} translation units follow the naming scheme and length limit"
