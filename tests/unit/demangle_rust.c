// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The Rust demangler of perfring script/report (tools/shared/rust_demangle.c),
 * both manglings, against what perf prints (binutils' libiberty, which `nm -C`
 * uses too: tests/cli/names_cxx_rust.sh checks perf's listing against perfring's):
 * - real names from a program built here with rustc 1.95 (legacy for its own
 *   crate, v0 for the standard library) and from the toolchain's libstd .so,
 *   with `nm -C`'s answers, in the table below;
 * - every Rust name the installed toolchain's libstd .so exports against
 *   `nm -C` (skipped without rustc): rustc 1.95's are v0 (1749 names),
 *   Debian 12's rustc 1.63's legacy (2628 names);
 * - malformed and hostile names: not demangled (the name as it is), nothing
 *   read past the end, the output bounded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shared/demangle.h"
#include "shared/rust_demangle.h"
#include "harness.h"

static const struct {
	const char *mangled, *shown;
} real[] = {
	{ "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h15691c655f7f0bfbE.llvm.17909084558636703398",
	  "std::rt::lang_start::{{closure}}" },
	{ "_ZN4core3ops8function6FnOnce40call_once$u7b$$u7b$vtable.shim$u7d$$u7d$17haa91abdafbd04ca5E.llvm.17909084558636703398",
	  "core::ops::function::FnOnce::call_once{{vtable.shim}}" },
	{ "_ZN40_$LT$work..Sq$u20$as$u20$work..Shape$GT$4area17hf4cdc37c8f7e7949E.llvm.8875914829646522556",
	  "<work::Sq as work::Shape>::area" },
	{ "_ZN9hashbrown3raw21RawTable$LT$T$C$A$GT$14reserve_rehash17h40815864eedb3b39E.llvm.14266895894877760616",
	  "hashbrown::raw::RawTable<T,A>::reserve_rehash" },
	{ "_ZN4core3ptr65drop_in_place$LT$alloc..boxed..Box$LT$dyn$u20$work..Shape$GT$$GT$17hcf7d16345c50489dE.llvm.17909084558636703398",
	  "core::ptr::drop_in_place<alloc::boxed::Box<dyn work::Shape>>" },
	{ "_ZN4core3ptr88drop_in_place$LT$alloc..vec..Vec$LT$alloc..boxed..Box$LT$dyn$u20$work..Shape$GT$$GT$$GT$17h93bf719b60a78d07E.llvm.17909084558636703398",
	  "core::ptr::drop_in_place<alloc::vec::Vec<alloc::boxed::Box<dyn work::Shape>>>" },
	{ "_ZN86_$LT$alloc..vec..into_iter..IntoIter$LT$T$C$A$GT$$u20$as$u20$core..ops..drop..Drop$GT$4drop17h248b12ae53bf1d00E",
	  "<alloc::vec::into_iter::IntoIter<T,A> as core::ops::drop::Drop>::drop" },
	{ "_ZN111_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$alloc..vec..spec_from_iter_nested..SpecFromIterNested$LT$T$C$I$GT$$GT$9from_iter17hc841985c043eef41E",
	  "<alloc::vec::Vec<T> as alloc::vec::spec_from_iter_nested::SpecFromIterNested<T,I>>::from_iter" },
	{ "_ZN111_$LT$alloc..vec..Vec$LT$T$GT$$u20$as$u20$alloc..vec..spec_from_iter_nested..SpecFromIterNested$LT$T$C$I$GT$$GT$9from_iter17ha913ba5d966a9421E",
	  "<alloc::vec::Vec<T> as alloc::vec::spec_from_iter_nested::SpecFromIterNested<T,I>>::from_iter" },
	{ "_ZN4core3ptr65drop_in_place$LT$alloc..vec..Vec$LT$alloc..string..String$GT$$GT$17hef4a3b19eec83ec1E",
	  "core::ptr::drop_in_place<alloc::vec::Vec<alloc::string::String>>" },
	{ "_ZN4core5slice4sort6shared9smallsort25insertion_sort_shift_left17hc61577531eb48631E",
	  "core::slice::sort::shared::smallsort::insertion_sort_shift_left" },
	{ "_ZN4core5slice4sort6stable14driftsort_main17h2da4de2edd22e604E",
	  "core::slice::sort::stable::driftsort_main" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc3vec3VecINtNtBL_5boxed3BoxDNtCsd1KyoYBeSBP_4work5ShapeEL_EEEB1y_.llvm.6841025053776449957",
	  "core::ptr::drop_in_place::<alloc::vec::Vec<alloc::boxed::Box<dyn work::Shape>>>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDNtCsd1KyoYBeSBP_4work5ShapeEL_EEB1i_.llvm.6841025053776449957",
	  "core::ptr::drop_in_place::<alloc::boxed::Box<dyn work::Shape>>" },
	{ "_RNCINvMs0_NtNtCsi4IsKQVxMg0_3std4sync4onceNtB8_4Once9call_onceNCNvNtBc_2rt7cleanup0E0Bc_",
	  "<std::sync::once::Once>::call_once::<std::rt::cleanup::{closure#0}>::{closure#0}" },
	{ "_RNCNCNvNtNtCsi4IsKQVxMg0_3std3sys9backtrace10__print_fmts_00B9_",
	  "std::sys::backtrace::_print_fmt::{closure#1}::{closure#0}" },
	{ "_RNSINvNtCsi4IsKQVxMg0_3std9panicking11begin_panicReE5reifyB6_",
	  "std::panicking::begin_panic::<&str>::{shim:reify#0}" },
	{ "_RNSNvYNCINvMs0_NtNtCsjrHSEGnQ3l9_3std4sync4onceNtBd_4Once15call_once_forceNCINvMNtBf_9once_lockINtB1g_8OnceLockINtNtBf_14reentrant_lock13ReentrantLockINtNtCsgEmfK2I1SDS_4core4cell7RefCellINtNtNtNtBh_2io8buffered10linewriter10LineWriterNtNtB36_5stdio9StdoutRawEEEE10initializeNCINvB1f_11get_or_initNCNvB3N_7cleanup0E0zE0E0INtNtNtB2t_3ops8function6FnOnceTRNtBd_9OnceStateEE9call_once6vtableBh_",
	  "<<std::sync::once::Once>::call_once_force<<std::sync::once_lock::OnceLock<std::sync::reentrant_lock::ReentrantLock<core::cell::RefCell<std::io::buffered::linewriter::LineWriter<std::io::stdio::StdoutRaw>>>>>::initialize<<std::sync::once_lock::OnceLock<std::sync::reentrant_lock::ReentrantLock<core::cell::RefCell<std::io::buffered::linewriter::LineWriter<std::io::stdio::StdoutRaw>>>>>::get_or_init<std::io::stdio::cleanup::{closure#0}>::{closure#0}, !>::{closure#0}>::{closure#0} as core::ops::function::FnOnce<(&std::sync::once::OnceState,)>>::call_once::{shim:vtable#0}" },
	{ "_RNSNvYNCINvMs0_NtNtCsi4IsKQVxMg0_3std4sync4onceNtBd_4Once15call_once_forceNCINvMNtBf_9once_lockINtB1g_8OnceLockINtNtBf_14reentrant_lock13ReentrantLockINtNtCs8NwYtU1Mohg_4core4cell7RefCellINtNtNtNtBh_2io8buffered10linewriter10LineWriterNtNtB36_5stdio9StdoutRawEEEE10initializeNCINvB1f_11get_or_initNCNvB3N_7cleanup0E0zE0E0INtNtNtB2t_3ops8function6FnOnceTRNtBd_9OnceStateEE9call_once6vtableBh_",
	  "<<std::sync::once::Once>::call_once_force<<std::sync::once_lock::OnceLock<std::sync::reentrant_lock::ReentrantLock<core::cell::RefCell<std::io::buffered::linewriter::LineWriter<std::io::stdio::StdoutRaw>>>>>::initialize<<std::sync::once_lock::OnceLock<std::sync::reentrant_lock::ReentrantLock<core::cell::RefCell<std::io::buffered::linewriter::LineWriter<std::io::stdio::StdoutRaw>>>>>::get_or_init<std::io::stdio::cleanup::{closure#0}>::{closure#0}, !>::{closure#0}>::{closure#0} as core::ops::function::FnOnce<(&std::sync::once::OnceState,)>>::call_once::{shim:vtable#0}" },
	{ "_RNSNvYNCINvMs0_NtNtCsi4IsKQVxMg0_3std4sync4onceNtBd_4Once15call_once_forceNCINvMNtBf_9once_lockINtB1g_8OnceLockNtNtBh_2fs4FileE10initializeNCNvNtNtNtBh_3sys6random5linux9getrandom0NtNtNtBh_2io5error5ErrorE0E0INtNtNtCs8NwYtU1Mohg_4core3ops8function6FnOnceTRNtBd_9OnceStateEE9call_once6vtableBh_",
	  "<<std::sync::once::Once>::call_once_force<<std::sync::once_lock::OnceLock<std::fs::File>>::initialize<std::sys::random::linux::getrandom::{closure#0}, std::io::error::Error>::{closure#0}>::{closure#0} as core::ops::function::FnOnce<(&std::sync::once::OnceState,)>>::call_once::{shim:vtable#0}" },
	{ "_RNvXsn_NtNtNtCs8NwYtU1Mohg_4core3fmt3num3impaNtB9_8LowerExp3fmt",
	  "<i8 as core::fmt::LowerExp>::fmt" },
	{ "_RNvXsU_NtNtCs8NwYtU1Mohg_4core3num7nonzeroINtB5_7NonZerohENtNtNtB9_3str6traits7FromStr8from_str",
	  "<core::num::nonzero::NonZero<u8> as core::str::traits::FromStr>::from_str" },
	{ "_RNvMNtNtCsi4IsKQVxMg0_3std3net3udpNtB2_9UdpSocket3ttl",
	  "<std::net::udp::UdpSocket>::ttl" },
	{ "_RNvMNtNtNtNtNtCsi4IsKQVxMg0_3std3sys3net10connection6socket4unixNtB2_6Socket20recv_from_with_flags",
	  "<std::sys::net::connection::socket::unix::Socket>::recv_from_with_flags" },
	{ "_RNvYNtNvXsf_NtNtCsbEht8wFNRx7_5alloc5boxed7convertINtBc_3BoxDNtNtCs8NwYtU1Mohg_4core5error5ErrorNtNtB11_6marker4SyncNtB1y_4SendEL_EINtNtB11_7convert4FromNtNtBe_6string6StringE4from11StringErrorBX_7provideCsi4IsKQVxMg0_3std",
	  "<<alloc::boxed::Box<dyn core::error::Error + core::marker::Sync + core::marker::Send> as core::convert::From<alloc::string::String>>::from::StringError as core::error::Error>::provide" },
	{ "_RNvYNtNtNtCs8NwYtU1Mohg_4core3num5error15TryFromIntErrorNtNtB8_5error5Error7type_idCsi4IsKQVxMg0_3std",
	  "<core::num::error::TryFromIntError as core::error::Error>::type_id" },
	{ "_RINvMs4_NtCsgY6Mt91CT9J_14rustc_demangle2v0NtB6_7Printer13print_backrefNCNvB2_10print_paths_0EB8_",
	  "<rustc_demangle::v0::Printer>::print_backref::<<rustc_demangle::v0::Printer>::print_path::{closure#1}>" },
	{ "_RINvMs9_NtNtNtCsbEht8wFNRx7_5alloc11collections5btree4nodeINtB6_7NodeRefNtNtB6_6marker5OwnedyNtNtNtCsiLkOfxryNm2_5gimli4read6abbrev12AbbreviationNtB1a_8InternalE17from_new_internalNtNtBc_5alloc6GlobalEB1z_",
	  "<alloc::collections::btree::node::NodeRef<alloc::collections::btree::node::marker::Owned, u64, gimli::read::abbrev::Abbreviation, alloc::collections::btree::node::marker::Internal>>::from_new_internal::<alloc::alloc::Global>" },
	{ "_RNvYNtNvXsf_NtNtCsbEht8wFNRx7_5alloc5boxed7convertINtBc_3BoxDNtNtCs8NwYtU1Mohg_4core5error5ErrorNtNtB11_6marker4SyncNtB1y_4SendEL_EINtNtB11_7convert4FromNtNtBe_6string6StringE4from11StringErrorBX_11descriptionCsi4IsKQVxMg0_3std",
	  "<<alloc::boxed::Box<dyn core::error::Error + core::marker::Sync + core::marker::Send> as core::convert::From<alloc::string::String>>::from::StringError as core::error::Error>::description" },
	{ "_RNvMs3_NtCsbEht8wFNRx7_5alloc7raw_vecINtB5_6RawVecINtNtB7_5boxed3BoxDINtNtNtCs8NwYtU1Mohg_4core3ops8function5FnMutuEp6OutputINtNtB1c_6result6ResultuNtNtNtCsi4IsKQVxMg0_3std2io5error5ErrorENtNtB1c_6marker4SyncNtB32_4SendEL_EE8grow_oneB2s_",
	  "<alloc::raw_vec::RawVec<alloc::boxed::Box<dyn core::ops::function::FnMut<(), Output = core::result::Result<(), std::io::error::Error>> + core::marker::Sync + core::marker::Send>>>::grow_one" },
	{ "_RNvMs3_NtCsbEht8wFNRx7_5alloc7raw_vecINtB5_6RawVecTOhFUKCBN_EuENtNtCsi4IsKQVxMg0_3std5alloc6SystemE8grow_oneB13_",
	  "<alloc::raw_vec::RawVec<(*mut u8, unsafe extern \"C\" fn(*mut u8)), std::alloc::System>>::grow_one" },
	{ "_RINvNtNtCsjrHSEGnQ3l9_3std3sys9backtrace28___rust_begin_short_backtraceFEuuECsd1KyoYBeSBP_4work",
	  "std::sys::backtrace::__rust_begin_short_backtrace::<fn(), ()>" },
	{ "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecTOhFUKCBN_EuENtNtCsjrHSEGnQ3l9_3std5alloc6SystemE8grow_oneB13_",
	  "<alloc::raw_vec::RawVec<(*mut u8, unsafe extern \"C\" fn(*mut u8)), std::alloc::System>>::grow_one" },
	{ "_RNvXsZ_NtCs8NwYtU1Mohg_4core5arrayAhj2_NtNtB7_7default7Default7defaultCsg0oAa7DM2pc_11miniz_oxide",
	  "<[u8; 2] as core::default::Default>::default" },
	{ "_RNvXsX_NtCs8NwYtU1Mohg_4core5arrayAhj4_NtNtB7_7default7Default7defaultCsg0oAa7DM2pc_11miniz_oxide",
	  "<[u8; 4] as core::default::Default>::default" },
	{ "_RINvNtCs8NwYtU1Mohg_4core3ptr9drop_glueINtNtNtCsbEht8wFNRx7_5alloc3vec9into_iter8IntoIterINtNtBI_5boxed3BoxDINtNtNtB4_3ops8function6FnOnceuEp6OutputuNtNtB4_6marker4SendEL_EEECsi4IsKQVxMg0_3std",
	  "core::ptr::drop_glue::<alloc::vec::into_iter::IntoIter<alloc::boxed::Box<dyn core::ops::function::FnOnce<(), Output = ()> + core::marker::Send>>>" },
	{ "_RNvXss_NtCsgEmfK2I1SDS_4core3fmtuNtB5_5Debug3fmt",
	  "<() as core::fmt::Debug>::fmt" },
	{ "_RNvYNvNtCsi4IsKQVxMg0_3std9panicking12default_hookINtNtNtCs8NwYtU1Mohg_4core3ops8function2FnTRNtNtB6_5panic13PanicHookInfoEE4callB6_",
	  "<std::panicking::default_hook as core::ops::function::Fn<(&std::panic::PanicHookInfo,)>>::call" },
	{ "_RINvNtCsgEmfK2I1SDS_4core3ptr13drop_in_placeINtNtCslNYArtu3iFV_5alloc5boxed3BoxDG0_INtNtNtB4_3ops8function2FnTRL1_INtNtCsjrHSEGnQ3l9_3std5panic13PanicHookInfoL0_EEEp6OutputuNtNtB4_6marker4SyncNtB2N_4SendEL_EEB1T_",
	  "core::ptr::drop_in_place::<alloc::boxed::Box<dyn for<'a, 'b> core::ops::function::Fn<(&'a std::panic::PanicHookInfo<'b>,), Output = ()> + core::marker::Sync + core::marker::Send>>" },
	{ "_RNvYINtCsgY6Mt91CT9J_14rustc_demangle21SizeLimitedFmtAdapterQNtNtCsgEmfK2I1SDS_4core3fmt9FormatterENtBZ_5Write9write_fmtB5_",
	  "<rustc_demangle::SizeLimitedFmtAdapter<&mut core::fmt::Formatter> as core::fmt::Write>::write_fmt" },
	{ "_RNvXs1h_NtCs8NwYtU1Mohg_4core3fmtQShNtB6_5Debug3fmtCscYsbIx0cOGh_14rustc_demangle",
	  "<&mut [u8] as core::fmt::Debug>::fmt" },
	{ "_RNvXs1g_NtCs8NwYtU1Mohg_4core3fmtRPNtNtB8_3ffi6c_voidNtB6_5Debug3fmtB8_",
	  "<&*const core::ffi::c_void as core::fmt::Debug>::fmt" },
	{ "_RNvYNCNvNvMsb_NtNtCs8NwYtU1Mohg_4core4task4wakeNtBc_10LocalWaker11from_fn_ptr6VTABLE0INtNtNtBg_3ops8function6FnOnceTPuEE9call_onceBg_",
	  "<<core::task::wake::LocalWaker>::from_fn_ptr::VTABLE::{closure#0} as core::ops::function::FnOnce<(*const (),)>>::call_once" },
	{ "_RNvXsq_NtCs8NwYtU1Mohg_4core3fmtONtNtB7_3ffi6c_voidNtB5_5Debug3fmtCsi4IsKQVxMg0_3std",
	  "<*mut core::ffi::c_void as core::fmt::Debug>::fmt" },
	{ "_RNvXsq_NtCsgEmfK2I1SDS_4core3fmtONtNtB7_3ffi6c_voidNtB5_5Debug3fmtCsjrHSEGnQ3l9_3std",
	  "<*mut core::ffi::c_void as core::fmt::Debug>::fmt" },
	{ "_RINvNtCs8NwYtU1Mohg_4core3ptr9drop_glueINtNtCsbEht8wFNRx7_5alloc5boxed3BoxDG0_INtNtNtB4_3ops8function2FnTRL1_INtNtCsi4IsKQVxMg0_3std5panic13PanicHookInfoL0_EEEp6OutputuNtNtB4_6marker4SyncNtB2I_4SendEL_EEB1O_",
	  "core::ptr::drop_glue::<alloc::boxed::Box<dyn for<'a, 'b> core::ops::function::Fn<(&'a std::panic::PanicHookInfo<'b>,), Output = ()> + core::marker::Sync + core::marker::Send>>" },
	{ "_RINvNtCs8NwYtU1Mohg_4core3ptr9drop_glueINtNtCsbEht8wFNRx7_5alloc3vec3VecINtNtBG_5boxed3BoxDINtNtNtB4_3ops8function6FnOnceuEp6OutputuNtNtB4_6marker4SendEL_EEECsi4IsKQVxMg0_3std",
	  "core::ptr::drop_glue::<alloc::vec::Vec<alloc::boxed::Box<dyn core::ops::function::FnOnce<(), Output = ()> + core::marker::Send>>>" },
	{ "_RINvNtCs8NwYtU1Mohg_4core3ptr9drop_glueSINtNtCsbEht8wFNRx7_5alloc5boxed3BoxDINtNtNtB4_3ops8function6FnOnceuEp6OutputuNtNtB4_6marker4SendEL_EECsi4IsKQVxMg0_3std",
	  "core::ptr::drop_glue::<[alloc::boxed::Box<dyn core::ops::function::FnOnce<(), Output = ()> + core::marker::Send>]>" },
	{ "_RINvNtNtNtNtCs8NwYtU1Mohg_4core5slice4sort6shared5pivot11median3_recNtNtCsdZdHHbMoveY_9addr2line8function15FunctionAddressNCINvMNtCsbEht8wFNRx7_5alloc5sliceSB14_11sort_by_keyyNCNvMs0_B16_INtB16_9FunctionsINtNtNtCsiLkOfxryNm2_5gimli4read12endian_slice11EndianSliceNtNtB3n_9endianity12LittleEndianEE5parses_0E0ECsi4IsKQVxMg0_3std",
	  "core::slice::sort::shared::pivot::median3_rec::<addr2line::function::FunctionAddress, <[addr2line::function::FunctionAddress]>::sort_by_key<u64, <addr2line::function::Functions<gimli::read::endian_slice::EndianSlice<gimli::endianity::LittleEndian>>>::parse::{closure#1}>::{closure#0}>" },
	{ "_RINvNtNtNtNtCs8NwYtU1Mohg_4core5slice4sort6stable5drift4sortNtNtCsdZdHHbMoveY_9addr2line8function15FunctionAddressNCINvMNtCsbEht8wFNRx7_5alloc5sliceSBW_11sort_by_keyyNCNvMs0_BY_INtBY_9FunctionsINtNtNtCsiLkOfxryNm2_5gimli4read12endian_slice11EndianSliceNtNtB3c_9endianity12LittleEndianEE5parses_0E0ECsi4IsKQVxMg0_3std",
	  "core::slice::sort::stable::drift::sort::<addr2line::function::FunctionAddress, <[addr2line::function::FunctionAddress]>::sort_by_key<u64, <addr2line::function::Functions<gimli::read::endian_slice::EndianSlice<gimli::endianity::LittleEndian>>>::parse::{closure#1}>::{closure#0}>" },
	{ "_RINvNtCsgEmfK2I1SDS_4core6escape14escape_unicodeKja_ECsgY6Mt91CT9J_14rustc_demangle",
	  "core::escape::escape_unicode::<10>" },
	{ "_RINvNtCs8NwYtU1Mohg_4core6escape14escape_unicodeKja_ECscYsbIx0cOGh_14rustc_demangle",
	  "core::escape::escape_unicode::<10>" },
	{ "_RINvNtCs8NwYtU1Mohg_4core9panicking13assert_failedAhj4_RShECsi4IsKQVxMg0_3std",
	  "core::panicking::assert_failed::<[u8; 4], &[u8]>" },
	{ "_RNvXs1g_NtCs8NwYtU1Mohg_4core3fmtRAhj4_NtB6_5Debug3fmtCsi4IsKQVxMg0_3std",
	  "<&[u8; 4] as core::fmt::Debug>::fmt" },
	{ "_RNvMNtCs8NwYtU1Mohg_4core5sliceSh11starts_withCsdZdHHbMoveY_9addr2line",
	  "<[u8]>::starts_with" },
	{ "_RINvMNtCs8NwYtU1Mohg_4core5sliceSh11copy_withinINtNtNtB5_3ops5range14RangeInclusivejEECsg0oAa7DM2pc_11miniz_oxide",
	  "<[u8]>::copy_within::<core::ops::range::RangeInclusive<usize>>" },
};

TEST(real_names)
{
	size_t i;

	for (i = 0; i < sizeof(real) / sizeof(real[0]); i++) {
		char *d = demangle_str(real[i].mangled);

		if (!d || strcmp(d, real[i].shown))
			printf("  %s: want '%s', got '%s'\n", real[i].mangled, real[i].shown, d ? d : "(none)");
		CHECK(d && !strcmp(d, real[i].shown));
		free(d);
	}
}

TEST(through_the_cache)
{
	struct demangler *d = demangler_new();

	CHECK(d != NULL);
	CHECK(!strcmp(demangle(d, "_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal"), "std::rt::lang_start_internal"));
	CHECK(!strcmp(demangle(d, "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h15691c655f7f0bfbE"
				      ".llvm.17909084558636703398"),
		      "std::rt::lang_start::{{closure}}"));
	/* a version or PLT suffix stays, as for C++ */
	CHECK(!strcmp(demangle(d, "_RNvNtCsjrHSEGnQ3l9_3std2rt19lang_start_internal@plt"),
		      "std::rt::lang_start_internal@plt"));
	/* a hash of fewer than 5 distinct digits: no Rust name, a C++ one (as nm -C shows it) */
	CHECK(!strcmp(demangle(d, "_ZN3foo3bar17h0000000000000000E"), "foo::bar::h0000000000000000"));
	demangler_free(d);
}

/* Names that are no Rust name (or not one perf demangles): NULL from the Rust demangler. */
TEST(malformed)
{
	static const char *const bad[] = {
		"_R",
		"_RN",
		"_RNv",
		"_RNvC",
		"_RNvCs_",
		"_RNvCs_3st",                  /* the identifier runs past the end */
		"_RNvNtCs_3std2rt99x",
		"_RB_",                        /* a back reference to itself */
		"_RNvB0_3foo",                 /* to a later position */
		"_RNvB9999999999999999999_3foo",
		"_RINvCs_3fooKj1234ZE",        /* bad const data */
		"_RINvCs_3fooKbaE",            /* not a bool */
		"_R0NvCs_3foo",                /* an encoding version */
		"_RNvCs_3foo$",
		"_RNvCs_u3foo",                /* punycode: not shown */
		"_ZN3foo3barE",                /* no hash: C++ */
		"_ZN3foo17h0000000000000000E", /* a hash of too few digits */
		"_ZN3foo3bar17h0123456789abcdefEx",
		"_ZN3foo3bar17h0123456789abcdeE",
		"_ZN3fo!3bar17h0123456789abcdefE",
		"_ZN3foo99bar17h0123456789abcdefE",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *d = rust_demangle(bad[i]);

		if (d)
			printf("  %s: demangled to '%s'\n", bad[i], d);
		CHECK(d == NULL);
		free(d);
	}
	/* an unknown escape: the rest of its element as it is */
	{
		char *d = rust_demangle("_ZN3foo9a$XX$b$C$17h0123456789abcdefE");

		CHECK(d && !strcmp(d, "foo::a$XX$b$C$"));
		free(d);
		d = rust_demangle("_ZN3foo11_$u41$$C$.b17h0123456789abcdefE");
		CHECK(d && !strcmp(d, "foo::A,.b"));
		free(d);
		/* a constant wider than 64 bits: its digits as libiberty prints them (the first left out) */
		d = rust_demangle("_RINvCs_3foo3barKb1_Koffffffffffffffffff_E");
		CHECK(d && !strcmp(d, "foo::bar::<true, 0xfffffffffffffffff_>"));
		free(d);
	}
}

/* Back references that double what they print at each level: past the bound, not demangled. */
TEST(bounded)
{
	char sym[4096];
	size_t n = 0, k;
	char *d;

	n += (size_t)snprintf(sym + n, sizeof(sym) - n, "_RINvCs_1a1fT");
	for (k = 0; k < 40; k++) /* each tuple holds the previous type twice */
		n += (size_t)snprintf(sym + n, sizeof(sym) - n, "T");
	n += (size_t)snprintf(sym + n, sizeof(sym) - n, "hh");
	for (k = 0; k < 40; k++)
		n += (size_t)snprintf(sym + n, sizeof(sym) - n, "EB%zx_", (size_t)0);
	n += (size_t)snprintf(sym + n, sizeof(sym) - n, "EE");
	d = rust_demangle(sym);
	CHECK(d == NULL || strlen(d) < 65536);
	free(d);
	/* deep nesting: not demangled past the depth bound */
	n = (size_t)snprintf(sym, sizeof(sym), "_RINvCs_1a1f");
	for (k = 0; k < 1000; k++)
		sym[n++] = 'R';
	sym[n++] = 'h';
	sym[n++] = 'E';
	sym[n] = 0;
	d = rust_demangle(sym);
	CHECK(d == NULL);
	free(d);
}

/* Every Rust name the toolchain's libstd .so exports (Debian strips its .symtab), against nm -C
 * (libiberty, perf's demangler). */
TEST(toolchain_against_nm)
{
	char cmd[1024], lib[768] = "", line[70000];
	FILE *f, *m, *dm;
	int same = 0, differ = 0;

	f = popen("ls \"$(rustc --print sysroot 2>/dev/null)\"/lib/rustlib/*/lib/libstd-*.so 2>/dev/null | head -n 1", "r");
	if (f) {
		if (fgets(lib, sizeof(lib), f))
			lib[strcspn(lib, "\n")] = 0;
		pclose(f);
	}
	if (!lib[0] || access(lib, R_OK)) {
		SKIP("rustc (its libstd .so) is not installed");
		return;
	}
	/* the same table, in its order: mangled, then demangled */
	snprintf(cmd, sizeof(cmd), "nm -D -p --defined-only '%s' | awk '{print $NF}'", lib);
	m = popen(cmd, "r");
	snprintf(cmd, sizeof(cmd), "nm -D -p -C --defined-only '%s' | sed -E 's/^[0-9a-f ]{16} . //'", lib);
	dm = popen(cmd, "r");
	CHECK(m && dm);
	while (fgets(line, sizeof(line), m)) {
		char want[70000], *d;

		if (!fgets(want, sizeof(want), dm))
			break;
		line[strcspn(line, "\n")] = 0;
		want[strcspn(want, "\n")] = 0;
		if (strncmp(line, "_R", 2) && strncmp(line, "_ZN", 3))
			continue;
		d = demangle_str(line);
		if (d && !strcmp(d, want)) {
			same++;
		} else if (differ++ < 10) {
			printf("  %s: nm -C '%s', perfring '%s'\n", line, want, d ? d : "(none)");
		}
		free(d);
	}
	pclose(m);
	pclose(dm);
	printf("  %s: %d names equal, %d differ\n", lib, same, differ);
	CHECK(same > 100 && differ == 0);
}


