package diffview_test

import (
	"fmt"

	"github.com/ckpt-dev/ckpt/diffview"
)

func ExampleCompute() {
	d := diffview.Compute([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"), diffview.Options{})
	for _, line := range d.Render(24, diffview.Unified, diffview.Styles{}) {
		fmt.Printf("%s|\n", line)
	}
	// Output:
	// @@ -1,3 +1,3 @@         |
	// 1 1   a                 |
	// 2   - b                 |
	//   2 + B                 |
	// 3 3   c                 |
}

func ExampleCompute_binary() {
	d := diffview.Compute(nil, []byte{0x89, 'P', 'N', 'G', 0}, diffview.Options{})
	fmt.Println(d.Binary, d.Rows()[0].Text)
	// Output: true binary, 5 bytes
}
