package bunstore

import "errors"

// errTodo marks stores being written (TEMPORARY; removed when they land).
var errTodo = errors.New("bunstore: not implemented yet")
