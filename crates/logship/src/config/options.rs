//! `options!`: one list of rows becomes a struct of options and every surface of it.
//!
//! Why it exists: an option is one fact (its name, type, default, doc, flag, attribute and
//! how it is stored), and every copy of a fact drifts. From one list of rows this macro
//! generates the struct (a documented field per row), its `Default` (the row's default),
//! its `Debug` (through the getters, so a secret is never shown), the rows of the key table
//! (`Struct::KEYS`, read by files, the environment, log4rs, the command line, the JVM
//! appender, `config check`, `config example` and the docs), and a macro of typed setters
//! (`name!(path.)`) that the builder (or the struct itself) invokes, so that a row's
//! setter is written once, next to the row. With `groups`, the struct also holds option
//! groups (structs made by this macro elsewhere), and the macro generates [`AnyKey`] (a
//! key of any group) and `all()` (every key, in order).
//!
//! Adding an option is one row here plus the code that uses it. Must never: generate a
//! getter that shows a secret (the rows of secret kinds use `redacted`), or a setter that
//! checks nothing it could not check at `build` (setters store; `validate` checks).
//!
//! [`AnyKey`]: super::keys::AnyKey

/// The value of an optional row part, or a default when the part is left out.
macro_rules! or_else {
    (; $default:expr) => {
        $default
    };
    ($value:expr; $default:expr) => {
        $value
    };
}
pub(crate) use or_else;

/// One typed setter of a row (none when the row has none): `pub fn name(mut self, args)
/// -> Self` that binds the field at `path` and runs the row's body.
macro_rules! setter_fn {
    ([$($doc:tt)*] $field:ident ($($path:tt)*)) => {};
    ([$($doc:tt)*] $field:ident ($($path:tt)*)
        fn $setter:ident ($($arg:ident : $argty:ty),*) |$bind:ident| $body:expr) => {
        $($doc)*
        pub fn $setter(mut self, $($arg: $argty),*) -> Self {
            {
                let $bind = &mut self.$($path)* $field;
                $body;
            }
            self
        }
    };
}
pub(crate) use setter_fn;

/// The setter of a whole option group (none when the group has none).
macro_rules! group_setter_fn {
    ([$($doc:tt)*] $field:ident $ty:ty, ($($path:tt)*)) => {};
    ([$($doc:tt)*] $field:ident $ty:ty, ($($path:tt)*) $setter:ident) => {
        $($doc)*
        pub fn $setter(mut self, options: $ty) -> Self {
            self.$($path)* $field = options;
            self
        }
    };
}
pub(crate) use group_setter_fn;

/// The name of a row's typed setter, as the docs show it (empty: none).
macro_rules! setter_name {
    () => {
        ""
    };
    ($setter:ident) => {
        stringify!($setter)
    };
}
pub(crate) use setter_name;

/// See the module docs. The rows' parts come in this order; those in `$( )?` may be left
/// out (`vendor_env: false`, `when: Always`, `attribute`: the name in camelCase, `builder`:
/// the generated setter's name).
macro_rules! options {
    (@dollar ($d:tt)
        $(#[$smeta:meta])*
        $vis:vis struct $Struct:ident {
            setters: $setters:ident,
            $(setters_on: $owner:literal,)?
            $(debug: $debug:ident,)?
            $(section: $section:literal,)?
            $(groups: [ $(
                $(#[$gmeta:meta])*
                $gfield:ident : $gty:ty $(=> fn $gsetter:ident)?
            ),* $(,)? ],)?
            rows: [ $(
                $(#[$fmeta:meta])*
                $field:ident : $ty:ty = $default:expr => {
                    name: $name:literal,
                    kind: $kind:expr,
                    $(vendor_env: $vendor_env:literal,)?
                    $(when: $when:ident,)?
                    $(attribute: $attribute:literal,)?
                    flag: $flag:expr,
                    $(builder: $builder:literal,)?
                    default: $default_doc:literal,
                    doc: $doc:literal,
                    set: $set:expr,
                    get: $get:expr
                    $(, setter: fn $setter:ident ($($arg:ident : $argty:ty),*) |$bind:ident| $body:expr)?
                    $(,)?
                }
            ),* $(,)? ]
        }
    ) => {
        $(#[$smeta])*
        $vis struct $Struct {
            $(
                $(#[$fmeta])*
                #[doc = ""]
                #[doc = concat!("Key `", $name, "`; default: ", $default_doc, ".")]
                pub $field: $ty,
            )*
            $($(
                $(#[$gmeta])*
                pub $gfield: $gty,
            )*)?
        }

        impl Default for $Struct {
            fn default() -> Self {
                $Struct {
                    $($field: $default,)*
                    $($($gfield: <$gty>::default(),)*)?
                }
            }
        }

        $(impl std::fmt::Debug for $Struct {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                // `debug: generated` asks for this impl (a struct may write its own).
                let _ = stringify!($debug);
                let mut out = f.debug_struct(stringify!($Struct));
                for key in Self::KEYS {
                    out.field(key.meta.name, &$crate::config::options::Shown((key.get)(self)));
                }
                self.debug_groups(&mut out);
                out.finish()
            }
        })?

        impl $Struct {
            /// Adds each option group's `Debug` to `out`.
            #[allow(dead_code, unused_variables)]
            fn debug_groups(&self, out: &mut std::fmt::DebugStruct<'_, '_>) {
                $($(out.field(stringify!($gfield), &self.$gfield);)*)?
            }
        }

        impl $Struct {
            /// The type its typed setters are methods of.
            const SETTERS_ON: &'static str =
                $crate::config::options::or_else!($($owner)?; "Builder");

            /// The file section its keys live in (`None`: the top level).
            const SECTION: Option<&'static str> =
                $crate::config::options::or_else!($(Some($section))?; None);

            /// The key table's rows stored in this struct, in order.
            pub(crate) const KEYS: &'static [$crate::config::key::Key<$Struct>] = &[$(
                $crate::config::key::Key {
                    meta: $crate::config::key::Meta {
                        name: $name,
                        kind: $kind,
                        vendor_env: $crate::config::options::or_else!($($vendor_env)?; false),
                        when: $crate::config::options::or_else!(
                            $($crate::config::key::When::$when)?;
                            $crate::config::key::When::Always
                        ),
                        attribute: $crate::config::options::or_else!(
                            $(Some($attribute))?; None
                        ),
                        flag: $flag,
                        setter: $crate::config::options::or_else!(
                            $($builder)?; $crate::config::options::setter_name!($($setter)?)
                        ),
                        setters_on: Self::SETTERS_ON,
                        default: $default_doc,
                        doc: $doc,
                        section: Self::SECTION,
                    },
                    set: $set,
                    get: $get,
                },
            )*];
        }

        $(
            /// A key of any struct of the table: the pipeline's own options, or one of its
            /// option groups.
            #[derive(Clone, Copy)]
            #[allow(non_camel_case_types)]
            pub(crate) enum AnyKey {
                /// A key of the struct itself.
                Own(&'static $crate::config::key::Key<$Struct>),
                $(
                    /// A key of this option group.
                    $gfield(&'static $crate::config::key::Key<$gty>),
                )*
            }

            impl AnyKey {
                /// Stores a value of its kind where the key lives.
                pub(crate) fn set(self, config: &mut $Struct, value: $crate::config::value::Value) {
                    match self {
                        AnyKey::Own(k) => (k.set)(config, value),
                        $(AnyKey::$gfield(k) => (k.set)(&mut config.$gfield, value),)*
                    }
                }

                /// Its effective value in TOML syntax (secrets `[redacted]`); `None` when unset.
                pub(crate) fn get(self, config: &$Struct) -> Option<String> {
                    match self {
                        AnyKey::Own(k) => (k.get)(config),
                        $(AnyKey::$gfield(k) => (k.get)(&config.$gfield),)*
                    }
                }
            }

            impl std::ops::Deref for AnyKey {
                type Target = $crate::config::key::Meta;

                fn deref(&self) -> &$crate::config::key::Meta {
                    match *self {
                        AnyKey::Own(k) => &k.meta,
                        $(AnyKey::$gfield(k) => &k.meta,)*
                    }
                }
            }

            /// Every key: the struct's own, then each group's, in the order written.
            pub(crate) fn all() -> impl Iterator<Item = AnyKey> {
                $Struct::KEYS.iter().map(AnyKey::Own)
                    $(.chain(<$gty>::KEYS.iter().map(AnyKey::$gfield)))*
            }
        )?

        /// The typed setters of these rows, for `impl` blocks: invoke with the path
        /// from `self` to the struct, a `.` after each part (`config.`; nothing for the
        /// struct itself).
        #[allow(unused_macros)]
        macro_rules! $setters {
            ($d($d path:tt)*) => {
                $(
                    $crate::config::options::setter_fn! {
                        [
                            $(#[$fmeta])*
                            #[doc = ""]
                            #[doc = concat!("Key `", $name, "`; default: ", $default_doc, ".")]
                        ]
                        $field ($d($d path)*)
                        $(fn $setter ($($arg: $argty),*) |$bind| $body)?
                    }
                )*
                $($(
                    $crate::config::options::group_setter_fn! {
                        [$(#[$gmeta])*] $gfield $gty, ($d($d path)*) $($gsetter)?
                    }
                )*)?
            };
        }
        #[allow(unused_imports)]
        pub(crate) use $setters;
    };
    ($($all:tt)*) => {
        $crate::config::options::options! { @dollar ($) $($all)* }
    };
}
pub(crate) use options;

/// An option's value as `Debug` shows it: the getter's TOML text, or `unset`.
pub(crate) struct Shown(pub Option<String>);

impl std::fmt::Debug for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0.as_deref().unwrap_or("unset"))
    }
}
