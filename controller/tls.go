package controller

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// LoadTLS builds the TLS configuration for ssl: and pssl: targets from PEM
// files, as Open vSwitch takes them (--private-key, --certificate,
// --ca-cert): the switch's key and certificate, and the CA that every
// controller's certificate must chain to. As in Open vSwitch, a peer is
// authenticated by its chain to that CA, not by its host name.
func LoadTLS(keyFile, certFile, caFile string) (*tls.Config, error) {
	if keyFile == "" || certFile == "" || caFile == "" {
		return nil, errors.New("TLS needs a private key, a certificate and a CA certificate")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("load key pair %s, %s: %w", certFile, keyFile, err)
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s: no PEM certificate", caFile)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS13,
		// Outgoing connections check the controller's chain to the CA
		// below instead of its name.
		InsecureSkipVerify: true,
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("peer sent no certificate")
			}
			inter := x509.NewCertPool()
			for _, c := range cs.PeerCertificates[1:] {
				inter.AddCert(c)
			}
			_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{
				Roots: pool, Intermediates: inter,
				KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny},
			})
			return err
		},
	}, nil
}
