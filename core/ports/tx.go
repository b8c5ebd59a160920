// Package ports declares the interfaces at Hearth's real seams: stores, the
// transaction manager, the event bus, the clock and secret handling.
// Every method takes ctx first; doc comments name the error kind of each failure.
package ports

import "context"

// TxManager runs work in one database transaction carried by the context.
type TxManager interface {
	// WithinTx runs fn in a transaction. A nested call joins the outer
	// transaction. fn's error rolls everything back and is returned as is.
	WithinTx(ctx context.Context, fn func(ctx context.Context) error) error
	// AfterCommit runs fn after the outermost transaction commits, or at
	// once when ctx carries no transaction. Rolled-back work never runs it.
	AfterCommit(ctx context.Context, fn func(ctx context.Context))
}
