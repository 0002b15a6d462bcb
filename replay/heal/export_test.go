package heal

// UnifiedDiff lets the external tests compare a proposal with the patch
// of what write-back wrote.
var UnifiedDiff = unifiedDiff
