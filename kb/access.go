package kb

import "errors"

// ErrNotAccessible is wrapped by the error of a read that an analyst's access refuses: a
// document or collection they may not read. Reference resolution reports such a reference
// as "not accessible" instead of following or quoting it.
var ErrNotAccessible = errors.New("not accessible")
