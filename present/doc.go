// Package present is how ckpt says things to people: a file's status as a
// letter and a word, an age, a size, a count, an operation's title, and
// text made safe for a terminal and fitted to a width. The command line and
// the terminal UI both use it, so they say the same thing the same way.
//
// It knows nothing of the store's files or of terminals' programs: it
// turns values into words. Statuses are taken by their string value (the
// store's Status type converts), so the diff renderer can use the text
// functions without depending on the store.
package present
