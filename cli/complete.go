package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/store"
)

// completeTurn completes a command's first argument with turn ids, each
// described by its label (read-only: it never creates a store); later
// arguments are paths when thenPaths, else nothing.
func completeTurn(g *globals, thenPaths bool) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			if thenPaths {
				return nil, cobra.ShellCompDirectiveDefault
			}
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		s, err := g.openStore(storeOptions{})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		defer s.Close()
		entries, err := s.Log(false)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, e := range entries {
			if e.Kind != store.KindAgent {
				continue
			}
			out = append(out, cobra.CompletionWithDesc(e.ID, esc(e.Label)))
		}
		return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveKeepOrder
	}
}

// initCompletion adds cobra's `completion bash|zsh|fish|powershell`
// command now, rather than when the tree runs, so that its mistakes are
// usage errors (exit 2) like every other command's.
func initCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		var shells []string
		for _, sh := range c.Commands() {
			sh.Args = noArgs("")
			shells = append(shells, sh.Name())
			if sh.Name() == "bash" {
				sh.RunE = func(cmd *cobra.Command, _ []string) error {
					noDesc, _ := cmd.Flags().GetBool("no-descriptions")
					return writeBashCompletion(root, cmd.OutOrStdout(), !noDesc)
				}
			}
		}
		c.Example = `source <(ckpt completion bash)
ckpt completion zsh > "${fpath[1]}/_ckpt"
ckpt completion fish > ~/.config/fish/completions/ckpt.fish`
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			return usageErrorf("completion: no shell %q (want %s)", args[0], strings.Join(shells, ", "))
		}
	}
}

// bashWordsFallback stands in for bash-completion's _get_comp_words_by_ref
// where that package is not installed (a bare bash, macOS's bash 3):
// cobra's script calls it, and without it every tab press printed
// "_get_comp_words_by_ref: command not found". The words are the command
// line up to the cursor, split at blanks only, which is what the package's
// version gives for "-n =:" (no split at = or :).
const bashWordsFallback = `
# Without the bash-completion package: the words of the line up to the
# cursor, split at blanks only, as _get_comp_words_by_ref -n =: gives them.
__ckpt_comp_words()
{
    local __line="${COMP_LINE:0:COMP_POINT}"
    local -a __words
    read -r -a __words <<< "$__line"
    if [[ -z "$__line" || "$__line" == *[[:blank:]] ]]; then
        __words+=("")
    fi
    words=("${__words[@]}")
    cword=$(( ${#words[@]} - 1 ))
    cur="${words[cword]}"
    if (( cword > 0 )); then
        prev="${words[cword-1]}"
    else
        prev=""
    fi
}
`

// bashWordsCall is the line of cobra's script that needs the package.
const bashWordsCall = `    _get_comp_words_by_ref "$@" cur prev words cword`

// writeBashCompletion writes cobra's bash script, its one call of
// _get_comp_words_by_ref made to fall back on __ckpt_comp_words.
func writeBashCompletion(root *cobra.Command, w io.Writer, desc bool) error {
	var b bytes.Buffer
	if err := root.GenBashCompletionV2(&b, desc); err != nil {
		return err
	}
	script := b.String()
	if !strings.Contains(script, bashWordsCall) {
		return fmt.Errorf("completion bash: cobra's script no longer calls _get_comp_words_by_ref as expected")
	}
	script = strings.Replace(script, bashWordsCall, `    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
    else
        __ckpt_comp_words
    fi`, 1)
	_, err := io.WriteString(w, bashWordsFallback+script)
	return err
}
