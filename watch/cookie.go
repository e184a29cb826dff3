package watch

import "os"

func writeCookie(p string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

func removeCookie(p string) { os.Remove(p) }
