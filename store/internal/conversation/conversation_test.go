package conversation

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ckpt-dev/ckpt/store/internal/format"
)

func TestRoundTrip(t *testing.T) {
	in := Turn{Prompt: "Write hello.txt,\nthen run a shell command.", Reply: "Done.",
		Calls: []Call{{Name: "write", Target: "hello.txt", State: StateOK}, {Name: "bash", Target: "make", State: StateFailed}, {Name: "read"}}}
	data := Encode(in)
	if !strings.HasPrefix(string(data), `{"v":1,`) {
		t.Errorf("encoded %s", data)
	}
	out, err := Decode("c.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip: %+v, want %+v", out, in)
	}
}

func TestBounds(t *testing.T) {
	big := strings.Repeat("é", MaxText) // two bytes each
	calls := make([]Call, MaxCalls+5)
	for i := range calls {
		calls[i] = Call{Name: strings.Repeat("n", MaxName+9), Target: strings.Repeat("t", MaxTarget+9), State: "weird"}
	}
	out, err := Decode("c.json", Encode(Turn{Prompt: big, Reply: "bad \xff byte", Calls: calls}))
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Prompt) > MaxText || !utf8.ValidString(out.Prompt) || !strings.HasSuffix(out.Prompt, "…") {
		t.Errorf("prompt of %d bytes, valid %v", len(out.Prompt), utf8.ValidString(out.Prompt))
	}
	if out.Reply != "bad \uFFFD byte" {
		t.Errorf("reply %q", out.Reply)
	}
	if len(out.Calls) == 0 || len(out.Calls)+out.Dropped != MaxCalls+5 || len(out.Calls[0].Name) > MaxName || len(out.Calls[0].Target) > MaxTarget || out.Calls[0].State != "" {
		t.Errorf("calls %d and %d dropped, first %d/%d bytes, state %q", len(out.Calls), out.Dropped, len(out.Calls[0].Name), len(out.Calls[0].Target), out.Calls[0].State)
	}
	// Control characters escape six times their size: still one file.
	ctl := strings.Repeat("\x01", MaxText)
	if data := Encode(Turn{Prompt: ctl, Reply: ctl, Calls: calls}); len(data) > MaxFile {
		t.Errorf("encoded %d bytes, over MaxFile", len(data))
	} else if _, err := Decode("c.json", data); err != nil {
		t.Error(err)
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, c := range []struct {
		data string
		want error
	}{
		{`{"v":2,"prompt":"from the future"}`, format.ErrNewerFormat},
		{`{"prompt":"no version"}`, format.ErrCorrupt},
		{`{"v":1,"prompt":`, format.ErrCorrupt},
		{`[1,2]`, format.ErrCorrupt},
		{`{"v":1,"calls":"no"}`, format.ErrCorrupt},
		{`{"v":1,"prompt":"` + strings.Repeat("x", MaxFile) + `"}`, format.ErrCorrupt},
	} {
		_, err := Decode("conversations/3.json", []byte(c.data))
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), "conversations/3.json") {
			t.Errorf("Decode(%.40q): %v, want %v naming the file", c.data, err, c.want)
		}
	}
}

func TestMerge(t *testing.T) {
	got := Turn{Prompt: "asked"}.Merge(Turn{Reply: "said", Calls: []Call{{Name: "bash"}}})
	if got.Prompt != "asked" || got.Reply != "said" || len(got.Calls) != 1 {
		t.Errorf("merge: %+v", got)
	}
	if got := (Turn{Prompt: "old"}).Merge(Turn{Prompt: "new"}); got.Prompt != "new" {
		t.Errorf("a newer prompt: %+v", got)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"v":1,"prompt":"p","reply":"r","calls":[{"name":"write","target":"a","state":"ok"}]}`))
	f.Add([]byte(`{"v":1,"calls":[{"name":"\u001b]0;x\u0007"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Decode("f.json", data)
		if err != nil {
			return
		}
		if len(out.Prompt) > MaxText || len(out.Reply) > MaxText || len(out.Calls) > MaxCalls ||
			!utf8.ValidString(out.Prompt) || !utf8.ValidString(out.Reply) {
			t.Fatalf("out of bounds: %d %d %d", len(out.Prompt), len(out.Reply), len(out.Calls))
		}
	})
}
