package ports

import (
	"context"

	"github.com/hearth-forge/hearth/core/domain"
)

// EventBus carries domain events between modules.
type EventBus interface {
	// Publish delivers ev: in-transaction subscribers run at once inside the
	// caller's transaction (their failure fails the publish); the others run
	// after the transaction commits.
	Publish(ctx context.Context, ev domain.BusEvent) error
	// Subscribe runs fn after commit for events named name. Errors are logged.
	Subscribe(name string, fn func(ctx context.Context, ev domain.BusEvent) error)
	// SubscribeTx runs fn inside the publisher's transaction, so what fn
	// writes commits or rolls back with the publisher's work.
	SubscribeTx(name string, fn func(ctx context.Context, ev domain.BusEvent) error)
}
