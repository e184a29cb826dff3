package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ckpt-dev/ckpt/store"
)

// demoFiles is the sample project before any agent touched it: a small
// web app with a secret in .env that git would never see.
var demoFiles = map[string]string{
	"package.json": `{
  "name": "tiny-shop",
  "version": "0.3.0",
  "scripts": { "start": "node server.js" }
}
`,
	"server.js": `const http = require("http");
const fs = require("fs");

const PORT = process.env.PORT || 3000;

http.createServer((req, res) => {
  const page = req.url === "/" ? "index.html" : req.url.slice(1);
  fs.readFile(page, (err, body) => {
    if (err) { res.writeHead(404); return res.end("not found"); }
    res.end(body);
  });
}).listen(PORT);
`,
	"index.html": `<!doctype html>
<html>
<head>
  <title>Tiny Shop</title>
  <link rel="stylesheet" href="style.css">
  <script src="legacy.js"></script>
</head>
<body>
  <h1>Tiny Shop</h1>
  <ul id="cart"></ul>
  <script src="app.js"></script>
</body>
</html>
`,
	"style.css": `body {
  font-family: system-ui, sans-serif;
  margin: 2rem;
  color: #222;
  background: #fff;
}

h1 { font-size: 2rem; }
`,
	"app.js": `const cart = [];

function add(item) {
  cart.push(item);
  render();
}

function render() {
  const ul = document.getElementById("cart");
  ul.innerHTML = cart.map((i) => "<li>" + i + "</li>").join("");
}
`,
	"legacy.js": `// jQuery-era helpers, kept for old pages.
function $(id) { return document.getElementById(id); }
`,
	".env": `PORT=3000
STRIPE_KEY=sk_test_51Hdemo0000000000000000
`,
}

// demoTurn is one scripted agent turn: each step writes (or, with a nil
// body, deletes) a file through the store as an agent's hook would.
type demoTurn struct {
	label string
	steps []demoStep
	// prompt follows the label in what the user asked; reply is the
	// agent's answer (the demo's transcript).
	prompt, reply string
}

type demoStep struct {
	path string
	body *string
}

func text(s string) *string { return &s }

var demoTurns = []demoTurn{
	{"add a dark theme", []demoStep{
		{"theme.css", text("@media (prefers-color-scheme: dark) {\n  body { color: #eee; background: #111; }\n}\n")},
		{"style.css", text("@import \"theme.css\";\n\nbody {\n  font-family: system-ui, sans-serif;\n  margin: 2rem;\n  color: #222;\n  background: #fff;\n}\n\nh1 { font-size: 2rem; }\n")},
		// The same file written twice in one turn: the first pre-image wins.
		{"style.css", text("@import \"theme.css\";\n\nbody {\n  font-family: system-ui, sans-serif;\n  margin: 2rem;\n  color: var(--fg, #222);\n  background: var(--bg, #fff);\n}\n\nh1 { font-size: 2.5rem; }\n")},
	}, "Follow the system's colour scheme, and make the heading a little bigger.",
		"Added theme.css with a dark palette behind prefers-color-scheme, imported it from style.css, and made h1 2.5rem."},
	{"drop the legacy jQuery helpers", []demoStep{
		{"legacy.js", nil},
		{"index.html", text("<!doctype html>\n<html>\n<head>\n  <title>Tiny Shop</title>\n  <link rel=\"stylesheet\" href=\"style.css\">\n</head>\n<body>\n  <h1>Tiny Shop</h1>\n  <ul id=\"cart\"></ul>\n  <script src=\"app.js\"></script>\n</body>\n</html>\n")},
	}, "Nothing uses legacy.js any more; take it out.",
		"Deleted legacy.js and its script tag in index.html; app.js already does what it did."},
	{"read the port and keys from config", []demoStep{
		{"src/config.js", text("module.exports = {\n  port: Number(process.env.PORT || 3000),\n  stripeKey: process.env.STRIPE_KEY,\n};\n")},
		{"server.js", text("const http = require(\"http\");\nconst fs = require(\"fs\");\nconst config = require(\"./src/config\");\n\nhttp.createServer((req, res) => {\n  const page = req.url === \"/\" ? \"index.html\" : req.url.slice(1);\n  fs.readFile(page, (err, body) => {\n    if (err) { res.writeHead(404); return res.end(\"not found\"); }\n    res.end(body);\n  });\n}).listen(config.port);\n")},
		{".env", text("PORT=8080\nSTRIPE_KEY=sk_test_51Hdemo0000000000000000\n")},
	}, "The port is hard-coded in server.js; read it and the Stripe key from the environment.",
		"Added src/config.js, which reads PORT and STRIPE_KEY, used it in server.js, and set both in .env. `npm test` fails: there are no tests yet."},
}

// demoHandEdit is the developer's own change after the agent's last turn.
const demoHandEdit = "const http = require(\"http\");\nconst fs = require(\"fs\");\nconst config = require(\"./src/config\");\n\n// Serve files from the project folder.\nhttp.createServer((req, res) => {\n  const page = req.url === \"/\" ? \"index.html\" : req.url.slice(1);\n  fs.readFile(page, (err, body) => {\n    if (err) { res.writeHead(404); return res.end(\"not found\"); }\n    res.end(body);\n  });\n}).listen(config.port);\n"

// makeDemo builds the sample project in dir (which must not exist or be
// empty), or in a new temporary folder when dir is "", and returns it.
func makeDemo(dir string) (string, error) {
	if dir == "" {
		d, err := os.MkdirTemp("", "ckpt-demo-")
		if err != nil {
			return "", fmt.Errorf("demo: make a folder: %w", err)
		}
		dir = d
	} else {
		ents, err := os.ReadDir(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return "", fmt.Errorf("demo: make %s: %w", dir, err)
			}
		case err != nil:
			return "", fmt.Errorf("demo: %s: %w", dir, err)
		case len(ents) > 0:
			return "", fmt.Errorf("demo: %s is not empty; name a new or empty folder", dir)
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", fmt.Errorf("demo: %w", err)
	}
	defer root.Close()
	for name, body := range demoFiles {
		if err := root.WriteFile(name, []byte(body), 0o644); err != nil {
			return "", fmt.Errorf("demo: write %s: %w", name, err)
		}
	}
	s, err := store.Open(dir, store.Options{Create: true})
	if err != nil {
		return "", err
	}
	defer s.Close()
	tr, err := writeDemoTranscript(dir)
	if err != nil {
		return "", err
	}
	for _, t := range demoTurns {
		id, err := s.NewTurn(store.TurnMeta{Label: t.label, Source: &store.Source{Agent: "demo", Session: "sample", Transcript: tr}})
		if err != nil {
			return "", err
		}
		for _, st := range t.steps {
			if st.body == nil {
				_, err = s.Remove(id, store.TurnMeta{}, []string{st.path})
			} else {
				_, err = s.Write(id, store.TurnMeta{}, st.path, []byte(*st.body))
			}
			if err != nil {
				return "", fmt.Errorf("demo: turn %q: %w", t.label, err)
			}
		}
	}
	if err := root.WriteFile("server.js", []byte(demoHandEdit), 0o644); err != nil {
		return "", fmt.Errorf("demo: write server.js: %w", err)
	}
	return dir, nil
}

// demoTranscript is where the demo keeps its sample session, beside the
// store (the folder git never sees).
const demoTranscript = ".osfoundry/demo-session.jsonl"

// writeDemoTranscript writes the demo's session as an agent would keep
// it (in Claude Code's format: package transcript reads "demo" so), for
// the UI's c and `ckpt show T --conversation`, and returns its path.
func writeDemoTranscript(dir string) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	at := time.Now().UTC()
	line := func(typ string, content any) {
		at = at.Add(time.Second)
		_ = enc.Encode(map[string]any{"type": typ, "sessionId": "sample", "timestamp": at.Format(time.RFC3339Nano),
			"message": map[string]any{"role": map[string]string{"user": "user", "assistant": "assistant"}[typ], "content": content}})
	}
	for ti, t := range demoTurns {
		line("user", t.label+"\n\n"+t.prompt)
		for si, st := range t.steps {
			id := fmt.Sprintf("toolu_%d_%d", ti, si)
			tool := map[string]any{"type": "tool_use", "id": id, "name": "Write", "input": map[string]string{"file_path": filepath.Join(dir, st.path)}}
			if st.body == nil {
				tool["name"], tool["input"] = "Bash", map[string]string{"command": "rm " + st.path}
			}
			line("assistant", []any{tool})
			line("user", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}})
		}
		if ti == len(demoTurns)-1 {
			line("assistant", []any{map[string]any{"type": "tool_use", "id": "toolu_test", "name": "Bash", "input": map[string]string{"command": "npm test"}}})
			line("user", []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_test", "content": "Error: no test specified", "is_error": true}})
		}
		line("assistant", []any{map[string]any{"type": "text", "text": t.reply}})
	}
	p := filepath.Join(dir, filepath.FromSlash(demoTranscript))
	if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
		return "", fmt.Errorf("demo: write %s: %w", p, err)
	}
	return p, nil
}
