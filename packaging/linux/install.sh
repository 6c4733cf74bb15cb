#!/bin/sh
# Put the unpacked Labwright bundle in the desktop's menus and on PATH.
#
#     ./install.sh                 for you (~/.local)
#     sudo ./install.sh /usr/local for everyone
#
# It copies the .desktop file, the AppStream metainfo and the icons from share/ and
# links bin/labwright to this folder's executable; the bundle itself stays where it
# is (move it first if you want it elsewhere, e.g. /opt/labwright).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${1:-"$HOME/.local"}
app=org.labwright.Labwright

mkdir -p "$prefix/bin" "$prefix/share/applications" "$prefix/share/metainfo" "$prefix/share/icons"
ln -sf "$here/labwright" "$prefix/bin/labwright"
# the menu entry starts this very executable, wherever PATH points
sed -e "s|^Exec=labwright|Exec=\"$here/labwright\"|" -e "s|^TryExec=labwright|TryExec=$here/labwright|" \
  "$here/share/applications/$app.desktop" >"$prefix/share/applications/$app.desktop"
cp "$here/share/metainfo/$app.metainfo.xml" "$prefix/share/metainfo/"
cp -R "$here/share/icons/hicolor" "$prefix/share/icons/"
command -v update-desktop-database >/dev/null && update-desktop-database -q "$prefix/share/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$prefix/share/icons/hicolor" || true
echo "Labwright is in your applications menu; from a terminal: $prefix/bin/labwright"
echo "Check this machine with: $prefix/bin/labwright doctor"
