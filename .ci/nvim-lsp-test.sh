#!/usr/bin/env bash
# Neovim as a real client of `reelier lsp`: builds reelier, opens a broken
# *.skill.md in headless Neovim with a tiny Lua config that attaches the
# server, and checks diagnostics, a quick fix, hover and formatting (see
# lang/lsp/testdata/nvim/check.lua). Needs nvim (Debian's neovim package).
set -euo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/reelier" ./cmd/reelier
cp lang/lsp/testdata/nvim/broken.skill.md "$tmp/broken.skill.md"

cd "$tmp"
REELIER="$tmp/reelier" WANT="$OLDPWD/lang/lsp/testdata/nvim/want.skill.md" \
  timeout 120 nvim --headless --clean -n \
    -c "luafile $OLDPWD/lang/lsp/testdata/nvim/check.lua" broken.skill.md
