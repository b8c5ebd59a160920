package domain

// Domain events travel on the EventBus. Each has a stable name.

// BusEvent is anything published on the bus.
type BusEvent interface{ EventName() string }

// UserCreated is published when an account is created.
type UserCreated struct {
	User  User
	Actor int64 // who created it; equals User.ID for self sign-up
}

func (UserCreated) EventName() string { return "user.created" }

// UserBlocked is published when an account is blocked or unblocked.
type UserStateChanged struct {
	User  User
	Actor int64
}

func (UserStateChanged) EventName() string { return "user.state_changed" }
