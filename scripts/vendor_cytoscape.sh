#!/usr/bin/env bash
# Vendor cytoscape.js (the graph drawing library of `knowforge view`) into the package, so the
# viewer draws offline: no CDN at run time. Fetches the pinned release from the npm registry
# with `npm pack`, checks it against the registry's published integrity, and copies the
# minified build and its licence. The copies are committed; run this only to change VERSION.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=3.35.0
# `npm view cytoscape@3.35.0 dist.integrity`
INTEGRITY="sha512-sMvBIXiGMnhkCaWz2R06FwF/27MNlS+Tqvi17foO9UhnUg3XGZccKjxsvEqQFAQYMSSZmN5SxYzUYlQ0DOJJ3g=="
DEST=knowforge/view/static/vendor
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
(cd "$WORK" && npm pack "cytoscape@$VERSION" --silent >/dev/null)
TARBALL="$WORK/cytoscape-$VERSION.tgz"
GOT="sha512-$(openssl dgst -sha512 -binary "$TARBALL" | base64 -w0)"
if [ "$GOT" != "$INTEGRITY" ]; then
  echo "cytoscape-$VERSION.tgz does not match the pinned integrity: got $GOT" >&2
  exit 1
fi
tar -xzf "$TARBALL" -C "$WORK" package/dist/cytoscape.min.js package/LICENSE package/package.json
mkdir -p "$DEST"
cp "$WORK/package/dist/cytoscape.min.js" "$DEST/cytoscape.min.js"
cp "$WORK/package/LICENSE" "$DEST/cytoscape.LICENSE"
printf 'cytoscape.js %s from the npm registry (npm pack cytoscape@%s), %s\nLicence: MIT, see cytoscape.LICENSE\n' \
  "$VERSION" "$VERSION" "$INTEGRITY" > "$DEST/README.txt"
echo "vendored cytoscape.js $VERSION into $DEST"
