#!/bin/sh
# embed-files.sh OUTPUT FILE...: writes OUTPUT, a Swift file declaring `enum EmbeddedFiles` with
# each FILE's bytes as a static `[UInt8]` named after the file (`pt-BR.strings` is
# `pt_BR_strings`), held as one base64 string literal and decoded on first use. Run by the
# EmbedFiles build plugin (plugin.swift beside this).
set -eu
out=$1
shift
tmp="$out.partial"
{
    echo "// Generated at build time by the EmbedFiles plugin (Plugins/EmbedFiles) from the target's data files."
    echo "import Foundation"
    echo
    echo "enum EmbeddedFiles {"
    names=" "
    for file in "$@"; do
        name=$(basename "$file" | sed 's/[^A-Za-z0-9_]/_/g')
        case $name in
            [0-9]*) echo "embed-files.sh: $file: a name must not start with a digit" >&2; exit 1 ;;
        esac
        case $names in
            *" $name "*) echo "embed-files.sh: $file: a second file named $name" >&2; exit 1 ;;
        esac
        names="$names$name "
        printf '    static let %s: [UInt8] = decoded("' "$name"
        base64 -w0 "$file"
        printf '")\n'
    done
    cat <<'SWIFT'

    private static func decoded(_ base64: StaticString) -> [UInt8] {
        guard let bytes = Data(base64Encoded: base64.description) else {
            preconditionFailure("EmbeddedFiles: a file's base64 does not decode")
        }
        return [UInt8](bytes)
    }
}
SWIFT
} >"$tmp"
mv "$tmp" "$out"
