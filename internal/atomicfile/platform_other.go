//go:build !unix

package atomicfile

// canSyncDir: Windows cannot fsync a directory handle; NTFS journals the
// rename itself.
const canSyncDir = false

// processGone cannot tell here, so a temporary file is judged by its age
// alone (StaleAfter).
func processGone(int) bool { return false }
