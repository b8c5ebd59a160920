package runners

import (
	"context"
	"fmt"

	"github.com/hearth-forge/hearth/core/domain"
)

// Request is the answer to a runner asking for work: a job, or none and
// the queue version to send back next time.
type Request struct {
	Job          *jobPayload
	QueueVersion string
}

// RequestJob hands runner the oldest pending job it may take. The claim,
// the job's token and its JobEvent commit together; the payload is built
// in the same transaction, so a failure leaves the job pending.
func (s *Service) RequestJob(ctx context.Context, in RunnerTokenInput, ip string) (*Request, error) {
	r, err := s.runnerByToken(ctx, in.Token)
	if err != nil {
		return nil, err
	}
	if !r.Active {
		return nil, errForbidden()
	}
	s.contact(ctx, r, in.Info, ip)
	// Read before claiming: a job queued meanwhile changes the version the
	// runner sends back, so it asks again rather than waiting.
	version, err := s.p.Jobs.QueueVersion(ctx)
	if err != nil {
		return nil, fmt.Errorf("queue version: %w", err)
	}
	var payload *jobPayload
	err = s.p.Tx.WithinTx(ctx, func(ctx context.Context) error {
		var token string
		j, err := s.p.Jobs.Claim(ctx, r, s.now(), func(*domain.Job) (string, error) {
			t, err := s.p.TokenGen.NewToken(jobTokenPrefix)
			if err != nil {
				return "", fmt.Errorf("job token: %w", err)
			}
			token = t
			return domain.TokenDigest(t), nil
		})
		if err != nil || j == nil {
			return err
		}
		if err := s.publishJob(ctx, j, domain.CIPending, 0); err != nil {
			return err
		}
		payload, err = s.payload(ctx, r, j, token)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim a job: %w", err)
	}
	return &Request{Job: payload, QueueVersion: version}, nil
}
