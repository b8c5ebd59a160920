package ports

import "context"

// TxManager runs work in one database transaction carried by the context.
type TxManager interface {
	// WithinTx runs fn in a transaction. A nested call joins the outer
	// transaction. fn's error rolls everything back and is returned as is.
	// In a nested call "everything" is the nested call's own work (and its
	// AfterCommit callbacks): the outer fn still decides whether the whole
	// transaction fails, and may carry on after handling the error.
	// An outermost fn may run more than once: an adapter runs it again
	// when the database aborted the transaction to break a deadlock, so
	// effects outside the database belong in AfterCommit.
	WithinTx(ctx context.Context, fn func(ctx context.Context) error) error
	// AfterCommit runs fn after the outermost transaction commits, or at
	// once when ctx carries no transaction. Rolled-back work never runs it.
	// Callbacks run in the order they were added, with a context that keeps
	// ctx's values but not its cancellation (the work they follow is done).
	AfterCommit(ctx context.Context, fn func(ctx context.Context))
}
