package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ckpt-dev/ckpt/present"
	"github.com/ckpt-dev/ckpt/store"
)

func init() { register(newVerifyCmd) }

func newVerifyCmd(g *globals) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check every record and blob",
		Long: `verify reads every record and checks every blob against its hash, and reads
every conversation file; it exits 1 when it finds damage, naming each
damaged file.`,
		Example: `ckpt verify
ckpt verify --json`,
		Args: noArgs(""),
		RunE: func(*cobra.Command, []string) error {
			s, err := g.openStore(storeOptions{})
			if err != nil {
				return err
			}
			defer s.Close()
			found, err := s.Verify()
			if err != nil {
				return err
			}
			if asJSON {
				type findingJSON struct {
					File   string `json:"file"`
					Reason string `json:"reason"`
				}
				packs, loose := s.PackCounts()
				out := struct {
					OK       bool          `json:"ok"`
					Findings []findingJSON `json:"findings"`
					Packs    int           `json:"packs"`
					Loose    int           `json:"loose"`
				}{OK: len(found) == 0, Findings: []findingJSON{}, Packs: packs, Loose: loose}
				for _, f := range found {
					out.Findings = append(out.Findings, findingJSON{f.File, findingWords(f)})
				}
				if err := printJSON(out); err != nil {
					return err
				}
			} else if len(found) == 0 {
				fmt.Println("store is sound: every record and blob checks out")
			} else {
				for _, f := range found {
					fmt.Printf("damaged: .osfoundry/checkpoints/%s: %s\n", esc(f.File), esc(findingWords(f)))
				}
			}
			if len(found) > 0 {
				return fmt.Errorf("%s damaged in the store", present.Count(len(found), "file"))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON (see CONTRACT.md)")
	return cmd
}

// findingWords is the reason verify gives for a finding, as CONTRACT.md's
// "reason": what is wrong with the file, in a sentence. The store says
// what it found; these are the words.
func findingWords(f store.Finding) string {
	// The store's sentinels at the end of a detail repeat what it says.
	f.Detail = strings.ReplaceAll(strings.TrimSuffix(f.Detail, ": "+store.ErrCorrupt.Error()), "store: ", "")
	named := ""
	if len(f.Named) > 0 {
		named = ", named by " + strings.Join(f.Named, ", ")
	}
	const onlyIndex = " (only a lookup index: the next repack writes it again)"
	switch f.Kind {
	case store.FindUnreadable:
		return "unreadable: " + f.Detail
	case store.FindDamagedRecord:
		return fmt.Sprintf("record on line %d is damaged (checksum or JSON)", f.Line)
	case store.FindTornRecord:
		return fmt.Sprintf("its last record is torn (%d bytes after the last whole record); the next capture cuts it", f.Bytes)
	case store.FindNoTurnRecord:
		return "does not start with a turn record"
	case store.FindNewerOp:
		return fmt.Sprintf("operation %s was %s", f.ID, f.Detail)
	case store.FindBadPath:
		return fmt.Sprintf("a %s record names %q: %s", f.Record, f.Path, f.Detail)
	case store.FindSeedBlobName:
		if f.Detail != "" {
			return fmt.Sprintf("turn %s: %s", f.ID, f.Detail)
		}
		return fmt.Sprintf("turn %s names blob %q, which is not 64 hex digits", f.ID, f.Path)
	case store.FindNotBlob:
		return "not a blob: the name is not 64 hex digits (with .zst) or it is not a file"
	case store.FindDamagedBlob:
		return f.Detail + named
	case store.FindLostPack:
		return "unreadable, so the blobs it held are lost: " + f.Detail
	case store.FindBadPackIndex:
		return f.Detail + onlyIndex
	case store.FindNotPack:
		return "not a pack: the name does not end in .pack"
	case store.FindUnindexed:
		return fmt.Sprintf("does not locate blob %s of packs/%s", f.Blob, f.Pack) + onlyIndex
	case store.FindBlobSize:
		return fmt.Sprintf("blob %s is lost: %d bytes by the pack's index but %d by its records", f.Blob, f.Size, f.Want) + named
	case store.FindLostBlob:
		return fmt.Sprintf("blob %s is lost: %s", f.Blob, f.Detail) + named
	case store.FindMissingBlob:
		return "missing, named by " + strings.Join(f.Named, ", ")
	case store.FindDamagedConversation:
		return "conversation file is damaged (" + f.Detail + "): show --conversation cannot show it; the turn's records are untouched"
	case store.FindNotConversation:
		return "not a conversation file: the name is no turn's (<turn>.json)"
	}
	// FindNewerFormat, FindBadSeed and any kind to come: the reason alone.
	return f.Detail
}
