//! Comparing variants, and (with the `serde` feature) sending them across the page's worker
//! boundary as structured values: the kernel version by name, the features in force by name,
//! the tunable overrides as numbers. Nothing here parses a variant string; a value that names
//! an unknown version or feature is refused.

use crate::variant::Variant;

impl PartialEq for Variant {
    fn eq(&self, o: &Self) -> bool {
        self.name == o.name
            && core::ptr::eq(self.version, o.version)
            && self.features == o.features
            && self.tunables == o.tunables
    }
}

impl Eq for Variant {}

#[cfg(feature = "serde")]
mod serde_impls {
    use alloc::string::String;
    use alloc::vec::Vec;

    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::variant::{Feature, FeatureSet, Tunables, Variant, KERNEL_VERSIONS};

    #[derive(Serialize, Deserialize)]
    #[serde(remote = "Tunables")]
    struct TunablesDef {
        tunable_scaling: Option<u64>,
        latency_ns: Option<u64>,
        min_granularity_ns: Option<u64>,
        idle_min_granularity_ns: Option<u64>,
        wakeup_granularity_ns: Option<u64>,
        base_slice_ns: Option<u64>,
        migration_cost_ns: Option<u64>,
    }

    #[derive(Serialize, Deserialize)]
    struct VariantWire {
        name: String,
        version: String,
        features: Vec<String>,
        #[serde(with = "TunablesDef")]
        tunables: Tunables,
    }

    impl Serialize for Variant {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            VariantWire {
                name: self.name.clone(),
                version: self.version.name.into(),
                features: self.features.iter().map(|f| f.name().into()).collect(),
                tunables: self.tunables,
            }
            .serialize(s)
        }
    }

    impl<'de> Deserialize<'de> for Variant {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Variant, D::Error> {
            let w = VariantWire::deserialize(d)?;
            let version = KERNEL_VERSIONS
                .iter()
                .find(|p| p.name == w.version)
                .ok_or_else(|| D::Error::custom("unknown kernel version"))?;
            let mut features = Vec::with_capacity(w.features.len());
            for f in &w.features {
                features.push(
                    Feature::from_name(f).ok_or_else(|| D::Error::custom("unknown feature"))?,
                );
            }
            Ok(Variant {
                name: w.name,
                version,
                features: FeatureSet::of(&features),
                tunables: w.tunables,
            })
        }
    }
}
