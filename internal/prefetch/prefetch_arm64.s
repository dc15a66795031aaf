#include "textflag.h"

// func Load(p unsafe.Pointer)
TEXT ·Load(SB), NOSPLIT|NOFRAME, $0-8
	MOVD p+0(FP), R0
	PRFM (R0), PLDL1KEEP
	RET
