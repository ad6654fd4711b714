# CLI tests of JPEG images, --resize and --channels (issue 27 item 5): a
# folder of JPEGs trains and predicts; a mixed PNG/JPEG folder reads both
# and counts the other files on stderr; a single .jpg argument is an image;
# train --resize WxH stores the size and predict resizes other sizes to it
# (an older model only with predict --resize; without it, one line naming
# both sizes, exit 2); --channels 3 tells red from green squares of equal
# luma, which gray cannot; a corrupt, a truncated and a CMYK-free bad JPEG
# in a folder give one line naming the file, exit 2, no model; bad option
# values are usage errors (exit 1).
source "$(dirname "$0")/lib.sh"
command -v cjpeg >/dev/null || { fail "cjpeg missing (libjpeg-turbo-progs writes the test images)"; exit 1; }
cd "$TMP"

python3 - <<'PY' || fail "writing the test images"
import os, random, subprocess
from pngw import png
random.seed(3)
def jpg(path, w, h, px, colour=False):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open("x.pnm", "wb").write((b"P6" if colour else b"P5") + b"\n%d %d\n255\n" % (w, h) + bytes(px))
    subprocess.run(["cjpeg", "-quality", "95", "-outfile", path, "x.pnm"], check=True)
def bars(cls, w, h):  # class a: left half bright, b: top half bright, noisy
    return [max(0, min(255, (200 if ((c < w // 2) if cls == "a" else (r < h // 2)) else 30)
                       + random.randint(-20, 20))) for r in range(h) for c in range(w)]
for cls in "ab":
    for i in range(12):
        jpg("j/%s/%02d.jpg" % (cls, i), 16, 16, bars(cls, 16, 16))
        jpg("mix/%s/%02d.jpg" % (cls, i), 16, 16, bars(cls, 16, 16))
        png("mix/%s/%02d.png" % (cls, i), bars(cls, 16, 16), 16, 16)
    jpg("big/%s/0.jpg" % cls, 40, 40, bars(cls, 40, 40))
open("mix/a/notes.txt", "w").write("not an image\n")
open("mix/b/list.csv", "w").write("x\n")
for cls, col in (("red", (255, 0, 0)), ("green", (0, 130, 0))):  # luma 76 both
    for i in range(20):
        x0, y0 = random.randint(0, 8), random.randint(0, 8)
        px = []
        for r in range(16):
            for c in range(16):
                px += col if (x0 <= c < x0 + 8 and y0 <= r < y0 + 8) else (0, 0, 0)
        jpg("rg/%s/%02d.jpg" % (cls, i), 16, 16, px, colour=True)
PY

# a folder of JPEGs: trains, predicts (a folder, one .jpg, several)
expect_exit 0 "train on a folder of JPEGs" -- "$FSVC" train -q j j.fsvc
expect_exit 0 "eval on a folder of JPEGs" -- "$FSVC" eval j.fsvc j
expect_match "Accuracy = 100" "the JPEG folder is learnt" "$OUT"
expect_exit 0 "predict one .jpg" -- "$FSVC" predict j.fsvc j/b/03.jpg
expect_match "^j/b/03.jpg,b," "one .jpg is an image, predicted" "$OUT"
expect_exit 0 "predict several .jpg" -- "$FSVC" predict j.fsvc j/a/01.jpg j/b/01.jpg out.csv
[ "$(grep -c ',' out.csv)" = 3 ] && ok "several .jpg: header + 2 rows" || fail "several .jpg: $(cat out.csv)"

# a mixed folder reads both; the other files are counted
expect_exit 0 "train on a mixed folder" -- "$FSVC" train mix mix.fsvc
expect_match "data: mix, 48 x 256" "PNG and JPEG both read (48 images)" "$OUT"
expect_match "skipped 2 files that are not PNG or JPEG images" "other files counted" "$ERR"
expect_exit 0 "predict on a mixed folder" -- "$FSVC" predict mix.fsvc mix pm.csv
expect_match "skipped 2 files" "predict counts them too" "$ERR"
[ "$(wc -l < pm.csv)" = 49 ] && ok "48 predictions" || fail "mixed predictions: $(wc -l < pm.csv)"

# sizes: another size refused in one line; --resize at predict; a model
# trained with --resize resizes by itself
expect_exit 2 "another size without --resize" -- "$FSVC" predict j.fsvc big
expect_one_line "another size: one line" "$ERR"
expect_match "images of 40x40 .*the model reads 16x16; resize them to it with fsvc predict --resize" "both sizes named" "$ERR"
expect_exit 0 "predict --resize" -- "$FSVC" predict --resize j.fsvc big pb.csv
expect_match "big/a/0.jpg,a," "resized image a predicted a" "$(cat pb.csv)"
expect_match "big/b/0.jpg,b," "resized image b predicted b" "$(cat pb.csv)"
expect_exit 0 "train --resize 8x4" -- "$FSVC" train --resize 8x4 j j84.fsvc
expect_match "data: j, 24 x 32 u8" "train --resize: 8 x 4 = 32 features" "$OUT"
expect_exit 0 "a --resize model resizes at predict" -- "$FSVC" predict j84.fsvc big
expect_match "big/b/0.jpg,b," "a --resize model predicts other sizes" "$OUT"
expect_exit 0 "eval of a --resize model on other sizes" -- "$FSVC" eval j84.fsvc big
expect_match "Accuracy = 100" "the 40x40 images evaluated at 8x4" "$OUT"
expect_exit 0 "batched predict of a --resize model" -- "$FSVC" predict --batch 1 j84.fsvc big pbb.csv
expect_exit 0 "whole-folder predict of a --resize model" -- "$FSVC" predict --batch 0 j84.fsvc big pbw.csv
cmp -s pbb.csv pbw.csv && ok "batched = whole folder when resizing" || fail "batched != whole"
expect_exit 1 "--resize 8" -- "$FSVC" train --resize 8 j x.fsvc
expect_exit 1 "--resize 0x8" -- "$FSVC" train --resize 0x8 j x.fsvc
expect_exit 1 "--channels 2" -- "$FSVC" train --channels 2 j x.fsvc
expect_exit 1 "--resize on LIBSVM text" -- "$FSVC" train --resize 8x8 "$UCI/iris.train" x.fsvc
[ -e x.fsvc ] && fail "a usage error wrote a model" || ok "no model after usage errors"

# colour: red vs green squares of equal luma
expect_exit 0 "gray -v 5 on red/green" -- "$FSVC" train -q -v 5 rg
gray=$(echo "$OUT" | sed -n 's/Cross Validation Accuracy = \([0-9.]*\)%/\1/p')
expect_exit 0 "--channels 3 -v 5 on red/green" -- "$FSVC" train -q -v 5 --channels 3 rg
rgb=$(echo "$OUT" | sed -n 's/Cross Validation Accuracy = \([0-9.]*\)%/\1/p')
awk -v g="$gray" -v c="$rgb" 'BEGIN { exit !(g < 75 && c >= 95) }' \
  && ok "colour kept: gray $gray%, RGB $rgb%" || fail "colour: gray $gray%, RGB $rgb%"
expect_exit 0 "train --channels 3" -- "$FSVC" train -q --channels 3 rg rg.fsvc
expect_exit 0 "predict with an RGB model" -- "$FSVC" predict rg.fsvc rg/red/00.jpg rg/green/00.jpg
expect_match "rg/red/00.jpg,red," "RGB model: red" "$OUT"
expect_match "rg/green/00.jpg,green," "RGB model: green" "$OUT"

# bad JPEGs in a folder: one line naming the file, exit 2, no model
mkdir -p bad/a bad/b && cp j/a/*.jpg bad/a/ && cp j/b/*.jpg bad/b/
head -c 300 j/a/05.jpg > bad/a/05.jpg
expect_exit 2 "a truncated JPEG" -- "$FSVC" train bad bad.fsvc
expect_one_line "truncated: one line" "$ERR"
expect_match "bad/a/05.jpg: bad JPEG" "truncated: the file named" "$ERR"
cp j/a/05.jpg bad/a/05.jpg; printf '\377\330\377garbage' > bad/b/07.jpg
expect_exit 2 "a corrupt JPEG" -- "$FSVC" train bad bad.fsvc
expect_match "bad/b/07.jpg: bad JPEG" "corrupt: the file named" "$ERR"
printf 'not an image' > bad/b/07.jpg
expect_exit 2 "a .jpg that is no image" -- "$FSVC" predict j.fsvc bad/b/07.jpg
expect_match "bad/b/07.jpg: not a PNG or JPEG image" "no image: named" "$ERR"
[ -e bad.fsvc ] && fail "a bad image left a model" || ok "no model after bad images"

# the gray conversion is documented where users look
expect_exit 0 "fsvc help" -- "$FSVC" help
expect_match "0.299 R \+ 0.587 G \+ 0.114 B" "fsvc help names the gray conversion" "$OUT"
expect_exit 0 "train --help" -- "$FSVC" train --help
expect_match "--channels 1\|3" "train --help documents --channels" "$OUT"

# fsvc show says how the model reads images
expect_exit 0 "show an RGB model" -- "$FSVC" show rg.fsvc
expect_match "images: 16 x 16 \(rows x cols\), RGB" "show: RGB and the size" "$OUT"
expect_exit 0 "show a --resize model" -- "$FSVC" show j84.fsvc
expect_match "images: 4 x 8 .*gray.*resized" "show: the size and the resize flag" "$OUT"
