package record

import (
	"strings"
	"testing"
)

// A mode of 000 is written "mode":0 and read back as ModeZero, by the
// fast codec and by encoding/json alike; a mode left out stays unknown.
func TestModeZeroRoundTrip(t *testing.T) {
	img := Image{Kind: ImageDir, Mode: ModeZero}
	for _, l := range []Line{
		{R: "post", File: File{Path: "d", Img: &img}},                                               // the fast encoder
		{R: "step", File: File{Path: "d", Img: &img, Want: &Image{Kind: ImageDir}, Do: ActRestore}}, // encoding/json
	} {
		enc := Append(nil, &l)
		if !strings.Contains(string(enc), `"i":{"kind":"dir","mode":0}`) {
			t.Fatalf("%s encoded as %s", l.R, enc)
		}
		var got Line
		if !DecodeLine(enc[:len(enc)-1], &got) {
			t.Fatalf("%s does not decode", enc)
		}
		if got.Img.Mode != ModeZero {
			t.Errorf("%s: mode read back as %o", l.R, got.Img.Mode)
		}
		if got.Want != nil && got.Want.Mode != 0 {
			t.Errorf("%s: an unknown mode read back as %o", l.R, got.Want.Mode)
		}
	}
	var old Line
	enc := Append(nil, &Line{R: "post", File: File{Path: "d", Img: &Image{Kind: ImageDir}}})
	if !DecodeLine(enc[:len(enc)-1], &old) || old.Img.Mode != 0 {
		t.Fatalf("an image without a mode reads as %+v", old.Img)
	}
}
