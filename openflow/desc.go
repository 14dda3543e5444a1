package openflow

import "bytes"

// Desc is ofp_desc, the OFPMP_DESC reply body (OpenFlow 1.3.5 §7.3.5.1):
// NUL-padded ASCII strings.
type Desc struct {
	MfrDesc   [256]byte
	HWDesc    [256]byte
	SWDesc    [256]byte
	SerialNum [32]byte
	DPDesc    [256]byte
}

// CString returns a NUL-padded field as a string.
func CString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return string(b[:i])
	}
	return string(b)
}

// appendTo appends d, the body of an OFPMP_DESC reply.
func (d *Desc) appendTo(dst []byte) []byte {
	dst = append(dst, d.MfrDesc[:]...)
	dst = append(dst, d.HWDesc[:]...)
	dst = append(dst, d.SWDesc[:]...)
	dst = append(dst, d.SerialNum[:]...)
	return append(dst, d.DPDesc[:]...)
}

// decodeDesc decodes the body of an OFPMP_DESC reply.
func (m *MultipartReply) decodeDesc(body []byte) error {
	if len(body) != 1056 {
		return replyBad("body", 0)
	}
	d := &m.Desc
	copy(d.MfrDesc[:], body[0:])
	copy(d.HWDesc[:], body[256:])
	copy(d.SWDesc[:], body[512:])
	copy(d.SerialNum[:], body[768:])
	copy(d.DPDesc[:], body[800:])
	return nil
}
