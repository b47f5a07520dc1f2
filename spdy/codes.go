package spdy

// Status codes and setting ids carried by RST_STREAM, GOAWAY and SETTINGS.

import "fmt"

// RstStatus is the status code of a RST_STREAM frame.
type RstStatus uint32

const (
	RstProtocolError       RstStatus = 1
	RstInvalidStream       RstStatus = 2
	RstRefusedStream       RstStatus = 3
	RstUnsupportedVersion  RstStatus = 4
	RstCancel              RstStatus = 5
	RstInternalError       RstStatus = 6
	RstFlowControlError    RstStatus = 7
	RstStreamInUse         RstStatus = 8
	RstStreamAlreadyClosed RstStatus = 9
	RstInvalidCredentials  RstStatus = 10
	RstFrameTooLarge       RstStatus = 11
)

var rstNames = []string{"", "PROTOCOL_ERROR", "INVALID_STREAM", "REFUSED_STREAM", "UNSUPPORTED_VERSION",
	"CANCEL", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "STREAM_IN_USE", "STREAM_ALREADY_CLOSED",
	"INVALID_CREDENTIALS", "FRAME_TOO_LARGE"}

func (s RstStatus) String() string {
	if s > 0 && int(s) < len(rstNames) {
		return rstNames[s]
	}
	return fmt.Sprintf("RST_STATUS(%d)", uint32(s))
}

// GoAwayStatus is the status code of a GOAWAY frame. SPDY/3.1 defines 0, 1
// and 2; the SPDY/3 draft numbered INTERNAL_ERROR 11, which the session uses
// when it speaks spdy/3.
type GoAwayStatus uint32

const (
	GoAwayOK              GoAwayStatus = 0
	GoAwayProtocolError   GoAwayStatus = 1
	GoAwayInternalError   GoAwayStatus = 2
	GoAwayInternalErrorV3 GoAwayStatus = 11
)

func (s GoAwayStatus) String() string {
	switch s {
	case GoAwayOK:
		return "OK"
	case GoAwayProtocolError:
		return "PROTOCOL_ERROR"
	case GoAwayInternalError, GoAwayInternalErrorV3:
		return "INTERNAL_ERROR"
	}
	return fmt.Sprintf("GOAWAY_STATUS(%d)", uint32(s))
}

// SettingID names a SETTINGS entry (24-bit id on the wire).
type SettingID uint32

const (
	SettingUploadBandwidth      SettingID = 1
	SettingDownloadBandwidth    SettingID = 2
	SettingRoundTripTime        SettingID = 3
	SettingMaxConcurrentStreams SettingID = 4
	SettingCurrentCwnd          SettingID = 5
	SettingDownloadRetransRate  SettingID = 6
	SettingInitialWindowSize    SettingID = 7
	SettingClientCertVectorSize SettingID = 8
)

var settingNames = []string{"", "UPLOAD_BANDWIDTH", "DOWNLOAD_BANDWIDTH", "ROUND_TRIP_TIME",
	"MAX_CONCURRENT_STREAMS", "CURRENT_CWND", "DOWNLOAD_RETRANS_RATE", "INITIAL_WINDOW_SIZE",
	"CLIENT_CERTIFICATE_VECTOR_SIZE"}

func (id SettingID) String() string {
	if id > 0 && int(id) < len(settingNames) {
		return settingNames[id]
	}
	return fmt.Sprintf("SETTING(%d)", uint32(id))
}

// Setting is one SETTINGS entry.
type Setting struct {
	ID    SettingID
	Flags uint8 // FlagSettingPersist / FlagSettingPersisted
	Value uint32
}
