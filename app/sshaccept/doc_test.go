// Package sshaccept_test holds the heavy acceptance checks of git over SSH
// against a whole server with the real OpenSSH client: concurrent pushes
// and clones, and the clone benchmark. They live apart from package app's
// tests so that each package stays well inside go test's time budget.
package sshaccept_test
