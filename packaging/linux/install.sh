#!/usr/bin/env bash
# Install the frozen livecap folder for the current user, or remove it again.
#
#   ./install.sh              # from inside the built folder (dist/livecap/install.sh)
#   ./install.sh --uninstall
#
# Copies the folder to ~/.local/lib/livecap, links ~/.local/bin/livecap to its
# executable, and installs the .desktop file, AppStream metainfo and icon under
# ~/.local/share, so livecap appears in the application menu. Nothing outside
# the home folder is touched; PREFIX=/some/where overrides ~/.local.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PREFIX=${PREFIX:-$HOME/.local}
ID=io.github.livecap
LIB=$PREFIX/lib/livecap
BIN=$PREFIX/bin
SHARE=$PREFIX/share

if [ "${1:-}" = "--uninstall" ]; then
  rm -rf "$LIB"
  rm -f "$BIN/livecap" "$SHARE/applications/$ID.desktop" "$SHARE/metainfo/$ID.metainfo.xml" \
        "$SHARE/icons/hicolor/scalable/apps/$ID.svg"
  command -v update-desktop-database >/dev/null && update-desktop-database -q "$SHARE/applications" || true
  echo "livecap removed from $PREFIX (downloaded models stay in ~/.local/share/livecap)"
  exit 0
fi

[ -x "$HERE/livecap" ] && [ -d "$HERE/_internal" ] \
  || { echo "install.sh: run me from the built folder (dist/livecap/install.sh)" >&2; exit 1; }

mkdir -p "$LIB" "$BIN" "$SHARE/applications" "$SHARE/metainfo" "$SHARE/icons/hicolor/scalable/apps"
if [ "$HERE" != "$LIB" ]; then
  rm -rf "$LIB"
  cp -a "$HERE" "$LIB"
fi
ln -sf "$LIB/livecap" "$BIN/livecap"
# Exec with the absolute path: ~/.local/bin is not on every desktop session's PATH.
sed -e "s|^Exec=livecap|Exec=$LIB/livecap|" -e "s|^TryExec=livecap|TryExec=$LIB/livecap|" \
  "$HERE/share/applications/$ID.desktop" > "$SHARE/applications/$ID.desktop"
cp "$HERE/share/metainfo/$ID.metainfo.xml" "$SHARE/metainfo/"
cp "$HERE/share/icons/hicolor/scalable/apps/$ID.svg" "$SHARE/icons/hicolor/scalable/apps/"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$SHARE/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$SHARE/icons/hicolor" || true
echo "livecap installed in $LIB; run it from the application menu or as $BIN/livecap"
